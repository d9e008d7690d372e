package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** {@link BigEndian} lays values out as {@link ByteBuffer} does by default (big-endian), at any offset. */
class BigEndianTest {

    /** Signs, all-ones bytes, each byte's top bit, and random values. */
    private static long[] values() {
        Random random = new Random(35);
        LongStream edges = LongStream.of(0, 1, -1, 0x7F, 0x80, 0xFF, 0x8000, 0xFFFF, Integer.MIN_VALUE, Integer.MAX_VALUE,
                0xFFFF_FFFFL, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123_4567_89AB_CDEFL, 0x8080_8080_8080_8080L);
        return LongStream.concat(edges, random.longs(200)).toArray();
    }

    @Test
    void writesWhatByteBufferReadsAtEveryOffset() {
        for (long v : values()) {
            for (int at = 0; at < 4; at++) {
                byte[] ours = new byte[16];
                BigEndian.putShort(ours, at, (int) v);
                assertEquals((short) v, ByteBuffer.wrap(ours).getShort(at), "short " + v + " at " + at);
                BigEndian.putInt(ours, at, (int) v);
                assertEquals((int) v, ByteBuffer.wrap(ours).getInt(at), "int " + v + " at " + at);
                BigEndian.putLong(ours, at, v);
                assertEquals(v, ByteBuffer.wrap(ours).getLong(at), "long " + v + " at " + at);
            }
        }
    }

    @Test
    void readsWhatByteBufferWroteAtEveryOffset() {
        for (long v : values()) {
            for (int at = 0; at < 4; at++) {
                byte[] theirs = new byte[16];
                ByteBuffer.wrap(theirs).putShort(at, (short) v);
                assertEquals((short) v, BigEndian.getShort(theirs, at), "short " + v + " at " + at);
                ByteBuffer.wrap(theirs).putInt(at, (int) v);
                assertEquals((int) v, BigEndian.getInt(theirs, at), "int " + v + " at " + at);
                ByteBuffer.wrap(theirs).putLong(at, v);
                assertEquals(v, BigEndian.getLong(theirs, at), "long " + v + " at " + at);
            }
        }
    }

    @Test
    void touchesOnlyItsOwnBytes() {
        byte[] bytes = new byte[12];
        Arrays.fill(bytes, (byte) 0x5A);
        BigEndian.putLong(bytes, 2, -1L);
        byte[] expected = {0x5A, 0x5A, -1, -1, -1, -1, -1, -1, -1, -1, 0x5A, 0x5A};
        assertArrayEquals(expected, bytes);
    }
}
