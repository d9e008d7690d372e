package io.fastrmi.leanbench;

import java.util.List;

/**
 * The bytes of each object per codec on a repeated call (the second on a connection: descriptors
 * already sent where a codec keeps them), and the lean format's share of JDK serialization's.
 */
public final class LeanCodecSizes {

    private LeanCodecSizes() {
    }

    public static void main(String[] args) throws Exception {
        List<String> codecs = List.of("lean", "jdk", "kryo", "fory");
        System.out.printf("%-10s %8s %8s %8s %8s %10s%n", "object", "lean", "jdk", "kryo", "fory", "lean/jdk");
        for (var object : Codecs.OBJECTS.entrySet()) {
            long[] bytes = new long[codecs.size()];
            for (int i = 0; i < codecs.size(); i++) {
                Codecs.Codec codec = Codecs.named(codecs.get(i));
                codec.roundTrip(object.getValue().get());
                bytes[i] = codec.roundTrip(object.getValue().get());
            }
            System.out.printf("%-10s %8d %8d %8d %8d %10.2f%n", object.getKey(), bytes[0], bytes[1], bytes[2], bytes[3],
                    (double) bytes[0] / bytes[1]);
        }
    }
}
