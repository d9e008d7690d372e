package io.fastrmi.optrmi.lean;

/**
 * Big-endian shorts, ints and longs in a byte array, as the lean format and the JDK's field bytes
 * lay them out, with plain shifts. Not a byte-array {@code VarHandle}: a JVM's first few hundred
 * calls run the lean codec interpreted, and there every access through a handle walked its guard
 * and access-mode frames (a fresh pair's first calls with think time, docs/journal.md). Compiled,
 * C2 merges the byte stores from JDK 23 on (JDK 17 keeps them apart); the reads are a few loads
 * more. Either way on message headers and single fields only, never on bulk arrays.
 */
final class BigEndian {

    private BigEndian() {
    }

    static short getShort(byte[] b, int at) {
        return (short) ((b[at] << 8) | (b[at + 1] & 0xFF));
    }

    static int getInt(byte[] b, int at) {
        return (b[at] << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }

    static long getLong(byte[] b, int at) {
        return ((long) getInt(b, at) << 32) | (getInt(b, at + 4) & 0xFFFFFFFFL);
    }

    static void putShort(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    static void putLong(byte[] b, int at, long v) {
        putInt(b, at, (int) (v >>> 32));
        putInt(b, at + 4, (int) v);
    }
}
