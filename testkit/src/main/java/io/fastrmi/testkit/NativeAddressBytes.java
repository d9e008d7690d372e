package io.fastrmi.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Native context addresses as a peer's handshake carries them (see {@code fastrmi.h} and
 * {@code NativeAddresses}), built field by field, and mutated: for tests and fuzzers that forge them.
 */
public final class NativeAddressBytes {

    private NativeAddressBytes() {
    }

    /** libfabric: 'O', wait mode, pid and doorbell number (native order), name length, name. */
    public static byte[] ofi(int mode, int pid, int number, byte[] name) {
        return ByteBuffer.allocate(12 + name.length).order(ByteOrder.nativeOrder()).put((byte) 'O').put((byte) mode)
                .putInt(pid).putInt(number).putShort((short) name.length).put(name).array();
    }

    /** A {@code sockaddr_in}: family in native order, port and address in network order. */
    public static byte[] sockaddrIn(int port, int a, int b, int c, int d) {
        ByteBuffer s = ByteBuffer.allocate(16);
        s.order(ByteOrder.nativeOrder()).putShort((short) 2);
        s.order(ByteOrder.BIG_ENDIAN).putShort((short) port).put((byte) a).put((byte) b).put((byte) c).put((byte) d);
        return s.array();
    }

    /** A UCX worker reference: 'U', pid and number (native order) of its file in the user's folder. */
    public static byte[] ucxWorker(int pid, int number) {
        return ByteBuffer.allocate(9).order(ByteOrder.nativeOrder()).put((byte) 'U').putInt(pid).putInt(number).array();
    }

    /** Random bytes, up to 79, the first often one of the kinds' ('O', 'U', 'S'). */
    public static byte[] random(SplittableRandom random) {
        byte[] bytes = new byte[random.nextInt(80)];
        random.nextBytes(bytes);
        if (bytes.length > 0 && random.nextBoolean()) {
            bytes[0] = (byte) "OUS".charAt(random.nextInt(3));
        }
        return bytes;
    }

    /** One to three of: flip a bit, set a byte, cut, extend, repeat a slice; or the seed as it is. */
    public static byte[] mutate(byte[] seed, SplittableRandom random) {
        byte[] bytes = seed.clone();
        if (random.nextInt(10) == 0) {
            return bytes;
        }
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            int at = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
            switch (random.nextInt(5)) {
                case 0 -> {
                    if (bytes.length > 0) {
                        bytes[at] ^= (byte) (1 << random.nextInt(8));
                    }
                }
                case 1 -> {
                    if (bytes.length > 0) {
                        bytes[at] = (byte) random.nextInt(256);
                    }
                }
                case 2 -> bytes = Arrays.copyOf(bytes, at);
                case 3 -> {
                    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(16));
                    for (int i = bytes.length; i < longer.length; i++) {
                        longer[i] = (byte) random.nextInt(256);
                    }
                    bytes = longer;
                }
                default -> {
                    if (bytes.length > 0) {
                        int from = random.nextInt(bytes.length);
                        byte[] longer = Arrays.copyOf(bytes, bytes.length + (bytes.length - from));
                        System.arraycopy(bytes, from, longer, bytes.length, bytes.length - from);
                        bytes = longer;
                    }
                }
            }
        }
        return bytes;
    }
}
