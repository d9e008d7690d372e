package io.fastrmi.optrmi.lean;

import java.util.Arrays;

/**
 * Run by {@link DirectFieldsTest} in a JVM that does not export {@code jdk.internal.misc}: prints why
 * fields are not reached in place, then round-trips the corpus through the lean format the JDK's way
 * and prints each shape whose result differs from the JDK's own (none expected).
 */
public final class NoExportMain {

    private NoExportMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("UNAVAILABLE " + DirectFields.unavailableReason());
        int shapes = 0;
        for (Corpus.Shape shape : Corpus.shapes()) {
            Object obj = shape.make().get();
            byte[] lean = LeanPipe.jdkBytes(LeanPipe.leanRoundTrip(obj));
            byte[] jdk = LeanPipe.jdkBytes(LeanPipe.jdkRoundTrip(obj));
            if (!Arrays.equals(lean, jdk)) {
                System.out.println("DIFFERS " + shape.name());
            }
            shapes++;
        }
        System.out.println("SHAPES " + shapes);
    }
}
