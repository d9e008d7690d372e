package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Large primitive arrays read straight into the array from the transport ({@link BulkInput}), the
 * bytes RMI's buffered stream already took from it read first: the same objects as the copying
 * path, whatever sizes the transport hands its bytes out in, and the same outcome on hostile bytes.
 */
class BulkReadTest {

    private static final int BIS_SIZE = 8192; // RMI's BufferedInputStream's

    @Test
    void largeArraysAreReadStraightIntoTheArray() throws Exception {
        double[] big = Corpus.doubles(1 << 17); // 1 MiB
        int[] odd = new int[100_003]; // not a whole number of 8-byte words
        Arrays.setAll(odd, i -> i * 7919);
        byte[] bytes = new byte[300_001];
        new Random(1).nextBytes(bytes);
        char[] chars = new char[70_000];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = (char) (i * 31);
        }
        long[] inSegment = new long[1 << 14]; // in a writeObject's segment: copied, as its writer copies it
        Arrays.setAll(inSegment, i -> i * 31L);
        byte[] wire = writeWithBulk("before", big, odd, bytes, chars, new LeanRoundTripTest.LongsByHand(inSegment), "after");

        for (int seed = 0; seed < 20; seed++) {
            // The transport hands out 1 byte to 200 KiB at a time: every split of a header or an element
            Trickle trickle = new Trickle(wire, new Random(seed), seed % 2 == 0 ? 200_000 : 3_000);
            Object[] read = LeanPipe.receive(new LeanReader(trickle.source, LeanPipe.resolver(), trickle), 7);
            assertEquals("before", read[0]);
            assertArrayEquals(big, (double[]) read[1], "seed " + seed);
            assertArrayEquals(odd, (int[]) read[2], "seed " + seed);
            assertArrayEquals(bytes, (byte[]) read[3], "seed " + seed);
            assertArrayEquals(chars, (char[]) read[4], "seed " + seed);
            assertArrayEquals(inSegment, ((LeanRoundTripTest.LongsByHand) read[5]).values);
            assertEquals("after", read[6]);
            assertEquals(wire.length, trickle.straight + trickle.buffered, "every byte read once");
            // Through the buffer: the objects around the arrays, the segment's long[] (128 KiB), and
            // what RMI's buffer took with each frame's header (at most its 8 KiB; frames are 64 KiB
            // or more): the rest of the arrays went straight.
            long arrays = 8L * big.length + 4L * odd.length + bytes.length + 2L * chars.length;
            long frames = arrays / (64 * 1024) + 4;
            assertTrue(trickle.straight >= arrays - frames * BIS_SIZE,
                    "seed " + seed + ": " + trickle.straight + " of " + arrays + " array bytes straight");
            assertTrue(trickle.buffered <= 8L * inSegment.length + frames * BIS_SIZE + 1024,
                    "seed " + seed + ": " + trickle.buffered + " bytes through the buffer");
        }
    }

    @Test
    void withoutABulkInputArraysAreCopied() throws Exception {
        double[] big = Corpus.doubles(1 << 15);
        byte[] wire = writeWithBulk(big);
        Trickle trickle = new Trickle(wire, new Random(3), 50_000);
        Object[] read = LeanPipe.receive(new LeanReader(trickle.source, LeanPipe.resolver()), 1);
        assertArrayEquals(big, (double[]) read[0]);
        assertEquals(0, trickle.straight);
    }

    /**
     * Mutated streams with large arrays (flipped, inserted, deleted, cut bytes, frame headers
     * included) read with a bulk input as without one: the same objects, or a clear checked
     * exception, never another exception or a hang.
     */
    @Test
    void mutatedStreamsReadInBulkAsCopied() throws Exception {
        int inputs = Integer.getInteger("lean.fuzz.bulk.inputs", 3_000);
        ObjectInputFilter filter = ObjectInputFilter.Config.createFilter("maxarray=100000");
        int[] ints = new int[20_000];
        Arrays.setAll(ints, i -> i * 3);
        byte[][] seeds = {
            writeWithBulk(ints, "x", new double[9_000], Corpus.Tree.of(3)),
            writeWithBulk("a", new long[8_200], new char[40_000], new short[33_000]),
            writeWithBulk(new byte[70_000], new float[16_400], 42),
        };
        Random random = new Random(20261128L);
        int same = 0;
        int failed = 0;
        for (int input = 0; input < inputs; input++) {
            byte[] mutated = LeanFuzzTest.mutate(seeds[random.nextInt(seeds.length)], random);
            String copied = outcome(mutated, filter, null);
            Trickle trickle = new Trickle(mutated, new Random(input), 1 + random.nextInt(100_000));
            String bulk;
            try {
                bulk = outcome(mutated, filter, trickle);
            } catch (RuntimeException | Error e) {
                throw new AssertionError("input " + input + " ended in " + e + "\n"
                        + HexFormat.of().formatHex(mutated, 0, Math.min(mutated.length, 400)), e);
            }
            assertEquals(copied, bulk, "input " + input);
            if (copied.contains("failed ")) {
                failed++;
            } else {
                same++;
            }
        }
        System.out.printf("LEAN BULK FUZZ %d inputs: read through %d, failed alike %d%n", inputs, same, failed);
        assertTrue(failed > inputs / 4, "most mutations must be caught: " + failed);
    }

    /** Each object read, as its JDK serialization, then "end" or the exception that ended the read. */
    private static String outcome(byte[] wire, ObjectInputFilter filter, Trickle bulk) {
        StringBuilder outcome = new StringBuilder();
        try {
            InputStream source = bulk != null ? bulk.source : new java.io.ByteArrayInputStream(wire);
            LeanObjectInputStream in = new LeanObjectInputStream(new LeanReader(source, LeanPipe.resolver(), bulk));
            in.setObjectInputFilter(filter);
            for (int i = 0; i < 4; i++) {
                ByteArrayOutputStream jdk = new ByteArrayOutputStream();
                try (ObjectOutputStream out = new ObjectOutputStream(jdk)) {
                    out.writeObject(in.readObject());
                }
                outcome.append(HexFormat.of().formatHex(jdk.toByteArray())).append(' ');
            }
            in.endMessage();
            return outcome.append("end").toString();
        } catch (IOException | ClassNotFoundException e) {
            return outcome.append("failed ").append(e.getClass().getSimpleName()).toString();
        }
    }

    /** One message of the objects, large arrays written straight from the array, as a native stream's writer does. */
    static byte[] writeWithBulk(Object... objects) throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        OutputStream sink = new java.io.BufferedOutputStream(wire, BIS_SIZE);
        LeanWriter writer = new LeanWriter(sink, null, null, (array, offset, length) -> {
            sink.flush();
            wire.write(Trickle.bytesOf(array), (int) offset, (int) length);
        });
        LeanObjectOutputStream out = new LeanObjectOutputStream(writer);
        for (Object o : objects) {
            out.writeObject(o);
        }
        out.endMessage();
        sink.flush();
        return wire.toByteArray();
    }

    /**
     * A transport that hands out a connection's bytes in chunks of random sizes, under a
     * BufferedInputStream as RMI reads a socket; as a bulk input it reads from the transport
     * straight into an array at any byte offset. Counts the bytes each way took.
     */
    static final class Trickle implements BulkInput {
        final Buffered source;
        private final Transport transport;
        long straight;
        long buffered;

        Trickle(byte[] wire, Random random, int largestChunk) {
            this.transport = new Transport(wire, random, largestChunk);
            this.source = new Buffered(transport);
        }

        @Override
        public int held() {
            return source.held();
        }

        @Override
        public long readArray(Object array, long byteOffset, long byteLength) throws IOException {
            if (held() != 0) {
                throw new AssertionError("a straight read while the buffer holds " + held() + " bytes");
            }
            byte[] chunk = new byte[(int) Math.min(byteLength, 1 << 20)];
            int n = transport.readRaw(chunk, 0, chunk.length);
            if (n > 0) {
                putBytes(array, byteOffset, chunk, n);
                straight += n;
            }
            return n;
        }

        /** A primitive array's memory, native order. */
        static byte[] bytesOf(Object array) {
            if (array instanceof byte[] b) {
                return b;
            }
            Class<?> component = array.getClass().getComponentType();
            int length = java.lang.reflect.Array.getLength(array);
            byte[] bytes = new byte[length * PrimitiveArrays.elementSize(component)];
            PrimitiveArrays.copyOut(array, component, 0, length, bytes, 0);
            return bytes;
        }

        /** Writes n bytes into a primitive array's memory at a byte offset (inside an element too). */
        private static void putBytes(Object array, long byteOffset, byte[] from, int n) {
            if (array instanceof byte[] b) {
                System.arraycopy(from, 0, b, (int) byteOffset, n);
                return;
            }
            Class<?> component = array.getClass().getComponentType();
            int size = PrimitiveArrays.elementSize(component);
            int first = (int) (byteOffset / size);
            int count = (int) ((byteOffset + n + size - 1) / size) - first;
            byte[] elements = new byte[count * size];
            PrimitiveArrays.copyOut(array, component, first, count, elements, 0);
            System.arraycopy(from, 0, elements, (int) (byteOffset - (long) first * size), n);
            PrimitiveArrays.copyIn(elements, 0, array, component, first, count);
        }

        final class Transport extends InputStream {
            private final byte[] wire;
            private final Random random;
            private final int largestChunk;
            private int at;

            Transport(byte[] wire, Random random, int largestChunk) {
                this.wire = wire;
                this.random = random;
                this.largestChunk = largestChunk;
            }

            @Override
            public int read() {
                throw new AssertionError("RMI's buffer reads the socket in blocks");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                int n = readRaw(b, off, len);
                if (n > 0) {
                    buffered += n;
                }
                return n;
            }

            int readRaw(byte[] b, int off, int len) {
                if (at == wire.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, wire.length - at), 1 + random.nextInt(largestChunk));
                System.arraycopy(wire, at, b, off, n);
                at += n;
                return n;
            }

            @Override
            public int available() {
                return 0; // as a socket with nothing more come yet: BufferedInputStream stops at what one read gave
            }
        }

        /** RMI's buffer over the socket, telling how much it holds. */
        static final class Buffered extends BufferedInputStream {
            Buffered(InputStream in) {
                super(in, BIS_SIZE);
            }

            synchronized int held() {
                return count - pos;
            }
        }
    }
}
