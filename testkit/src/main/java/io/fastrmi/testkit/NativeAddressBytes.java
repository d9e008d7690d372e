package io.fastrmi.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Native context addresses as a peer's handshake carries them (see {@code fastrmi.h} and
 * {@code NativeAddresses}), built field by field: for tests and fuzzers that forge them.
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
}
