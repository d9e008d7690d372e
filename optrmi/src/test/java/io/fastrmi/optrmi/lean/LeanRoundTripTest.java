package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every shape of the corpus read back through the lean format is the object the JDK's own
 * serialization reads back: both results, serialized again by the JDK, give the same bytes
 * (which also compares shared references and cycles, through the JDK's handles).
 */
class LeanRoundTripTest {

    static List<Corpus.Shape> shapes() {
        return Corpus.shapes();
    }

    @Test
    void everythingTheFormatNeedsOfTheJdkIsThere() {
        org.junit.jupiter.api.Assertions.assertNull(LeanRuntime.unavailableReason());
    }

    @Test
    void theCorpusHasAtLeastSixtyShapes() {
        assertTrue(Corpus.shapes().size() >= 60, "shapes: " + Corpus.shapes().size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void readsBackWhatTheJdkReadsBack(Corpus.Shape shape) throws Exception {
        Object obj = shape.make().get();
        Object lean = LeanPipe.leanRoundTrip(obj);
        Object jdk = LeanPipe.jdkRoundTrip(obj);
        assertArrayEquals(LeanPipe.jdkBytes(jdk), LeanPipe.jdkBytes(lean), shape.name());
    }

    /** Primitive arrays cross in bulk: every element comes back, of each type, small and large (70,000). */
    @Test
    void largePrimitiveArraysComeBackWhole() throws Exception {
        java.util.Random random = new java.util.Random(1126);
        for (int length : new int[] {127, 128, 129, 255, 256, 257, 1023, 1024, 1025, 70_000}) {
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            boolean[] booleans = new boolean[length];
            char[] chars = new char[length];
            short[] shorts = new short[length];
            int[] ints = random.ints(length).toArray();
            long[] longs = random.longs(length).toArray();
            float[] floats = new float[length];
            double[] doubles = random.doubles(length).toArray();
            for (int i = 0; i < length; i++) {
                booleans[i] = random.nextBoolean();
                chars[i] = (char) random.nextInt();
                shorts[i] = (short) random.nextInt();
                floats[i] = random.nextFloat() - 0.5f;
            }
            Object[] back = (Object[]) LeanPipe.leanRoundTrip(
                    new Object[] {bytes, booleans, chars, shorts, ints, longs, floats, doubles});
            assertArrayEquals(bytes, (byte[]) back[0], "byte[" + length + "]");
            assertArrayEquals(booleans, (boolean[]) back[1], "boolean[" + length + "]");
            assertArrayEquals(chars, (char[]) back[2], "char[" + length + "]");
            assertArrayEquals(shorts, (short[]) back[3], "short[" + length + "]");
            assertArrayEquals(ints, (int[]) back[4], "int[" + length + "]");
            assertArrayEquals(longs, (long[]) back[5], "long[" + length + "]");
            assertArrayEquals(floats, (float[]) back[6], "float[" + length + "]");
            assertArrayEquals(doubles, (double[]) back[7], "double[" + length + "]");
        }
    }

    @Test
    void everyShapeInOneConnectionThreeTimesOver() throws Exception {
        List<Corpus.Shape> shapes = Corpus.shapes();
        List<Object> objects = shapes.stream().map(s -> s.make().get()).toList();
        LeanPipe pipe = new LeanPipe();
        int[] firstSizes = new int[shapes.size()];
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < shapes.size(); i++) {
                int size = pipe.send(objects.get(i), "after");
                if (round == 0) {
                    firstSizes[i] = size;
                } else {
                    assertTrue(size <= firstSizes[i], shapes.get(i) + ": " + size + " bytes, first time " + firstSizes[i]);
                }
            }
        }
        LeanReader reader = LeanPipe.reader(pipe.bytes());
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < shapes.size(); i++) {
                Object[] read = LeanPipe.receive(reader, 2);
                assertArrayEquals(LeanPipe.jdkBytes(LeanPipe.jdkRoundTrip(objects.get(i))), LeanPipe.jdkBytes(read[0]),
                        shapes.get(i).name() + " in round " + round);
                assertEquals("after", read[1]);
            }
        }
    }

    @Test
    void aClassDescriptorCrossesOncePerConnection() throws Exception {
        LeanPipe pipe = new LeanPipe();
        int first = pipe.send(Corpus.Tree.of(15));
        int second = pipe.send(Corpus.Tree.of(15));
        String wire = new String(pipe.bytes(), StandardCharsets.ISO_8859_1);
        String name = Corpus.Tree.class.getName();
        assertEquals(wire.indexOf(name), wire.lastIndexOf(name), "the class name crosses once");
        assertTrue(wire.indexOf(name) < first, "in the first message");
        // 15 nodes: tag and class id each, 16 null leaves, with no descriptor after the first time.
        assertTrue(second <= 4 + 15 * 2 + 16, "second message: " + second + " bytes");
        Object[] read = LeanPipe.receive(LeanPipe.reader(pipe.bytes()), 1);
        assertInstanceOf(Corpus.Tree.class, read[0]);
    }

    @Test
    void sharedReferencesAndCyclesKeepTheirIdentity() throws Exception {
        Corpus.Node ring = (Corpus.Node) LeanPipe.leanRoundTrip(Corpus.ring());
        assertSame(ring, ring.next.next.next);
        assertSame(ring, ring.next.prev);
        List<?> shared = (List<?>) LeanPipe.leanRoundTrip(Corpus.shared());
        assertSame(shared.get(0), shared.get(1));
        assertSame(shared.get(2), shared.get(3));
        Object[] twice = (Object[]) LeanPipe.leanRoundTrip(new Object[] {"x", "x"});
        assertSame(twice[0], twice[1]);
    }

    @Test
    void objectsAreForgottenBetweenMessages() throws Exception {
        LeanPipe pipe = new LeanPipe();
        Corpus.Point p = new Corpus.Point(1, 1);
        pipe.send(p);
        pipe.send(p);
        LeanReader reader = LeanPipe.reader(pipe.bytes());
        Object a = LeanPipe.receive(reader, 1)[0];
        Object b = LeanPipe.receive(reader, 1)[0];
        assertEquals(a, b);
        assertNotSame(a, b);
    }

    @Test
    void hooksRunAsTheJdkRunsThem() throws Exception {
        assertSame(Corpus.Singleton.INSTANCE, LeanPipe.leanRoundTrip(Corpus.Singleton.INSTANCE));
        assertInstanceOf(Corpus.Replaced.class, LeanPipe.leanRoundTrip(new Corpus.Replaced(3)));
        Corpus.Validated v = (Corpus.Validated) LeanPipe.leanRoundTrip(new Corpus.Validated(3));
        assertTrue(v.validated, "validation callback ran");
        Corpus.Child child = (Corpus.Child) LeanPipe.leanRoundTrip(new Corpus.Child(5, "c"));
        assertEquals(77, child.parentField, "the non-serializable parent's constructor ran");
        Corpus.WithExtra extra = (Corpus.WithExtra) LeanPipe.leanRoundTrip(new Corpus.WithExtra(1, "s"));
        assertEquals("s!", extra.extra);
    }

    @Test
    void primitivesBetweenObjectsAndPartlyReadMessages() throws Exception {
        LeanPipe pipe = new LeanPipe();
        LeanObjectOutputStream out = new LeanObjectOutputStream(pipe.writer);
        out.writeInt(7);
        out.writeLong(-1L);
        out.writeObject("mid");
        out.writeDouble(1.25);
        out.writeUTF("ünïcode ☃");
        out.writeBoolean(true);
        out.endMessage();
        pipe.send("second message");
        LeanReader reader = LeanPipe.reader(pipe.bytes());
        LeanObjectInputStream in = new LeanObjectInputStream(reader);
        assertEquals(7, in.readInt());
        assertEquals(-1L, in.readLong());
        assertEquals("mid", in.readObject());
        in.endMessage(); // leaves a double, a string and a boolean unread
        assertEquals("second message", LeanPipe.receive(reader, 1)[0]);
    }

    @Test
    void largeMessagesCrossInManyFrames() throws Exception {
        double[] big = Corpus.doubles(1 << 20);
        LeanPipe pipe = new LeanPipe();
        int size = pipe.send(big, "end");
        assertTrue(size > 8 * big.length);
        Object[] read = LeanPipe.receive(LeanPipe.reader(pipe.bytes()), 2);
        assertArrayEquals(big, (double[]) read[0]);
        assertEquals("end", read[1]);
    }

    @Test
    void largePrimitiveArraysGoToTheBulkOutputStraightFromTheArray() throws Exception {
        double[] big = Corpus.doubles(1 << 17); // 1 MiB
        int[] small = {1, 2, 3}; // below the bulk size: copied as before
        long[] inSegment = new long[1 << 14]; // in a writeObject's segment: copied (its length is patched later)
        java.util.Arrays.setAll(inSegment, i -> i * 31L);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        List<Object> handedOver = new ArrayList<>();
        OutputStream sink = new java.io.BufferedOutputStream(wire, 8192); // as RMI's own buffering over the socket
        LeanWriter writer = new LeanWriter(sink, null, null, (array, offset, length) -> {
            sink.flush(); // what was written before goes first
            handedOver.add(array);
            byte[] bytes = new byte[(int) length];
            PrimitiveArrays.copyOut(array, double.class, (int) (offset / 8), (int) (length / 8), bytes, 0);
            wire.write(bytes);
        });
        LeanObjectOutputStream out = new LeanObjectOutputStream(writer);
        out.writeObject("before");
        out.writeObject(big);
        out.writeObject(small);
        out.writeObject(new LongsByHand(inSegment));
        out.writeObject("after");
        out.endMessage();
        sink.flush();

        // Frames of BULK_FRAME_BYTES after a frame of "before" and the array's header: 8 parts.
        assertEquals(8 * big.length / OutBuffer.BULK_FRAME_BYTES, handedOver.size());
        assertTrue(handedOver.stream().allMatch(a -> a == big), "the writer copied nothing of it");
        Object[] read = LeanPipe.receive(LeanPipe.reader(wire.toByteArray()), 5);
        assertEquals("before", read[0]);
        assertArrayEquals(big, (double[]) read[1]);
        assertArrayEquals(small, (int[]) read[2]);
        assertArrayEquals(inSegment, ((LongsByHand) read[3]).values);
        assertEquals("after", read[4]);
    }

    /** A class whose writeObject writes a long[]: the array is inside the class's segment. */
    static final class LongsByHand implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        transient long[] values;

        LongsByHand(long[] values) {
            this.values = values;
        }

        @java.io.Serial
        private void writeObject(java.io.ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeObject(values);
        }

        @java.io.Serial
        private void readObject(java.io.ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            values = (long[]) in.readObject();
        }
    }

    @Test
    void bytesAgainstJdkSerialization() throws IOException {
        // Over repeated calls on one connection (the second message on), the lean bytes of KaRMI's small
        // objects against a JDK stream's (RMI makes one per call). Arrays and long strings are their
        // content in both formats, so only these can be a third.
        for (Object obj : new Object[] {new Corpus.Int32(), new Corpus.Int4Null2(), Corpus.Tree.of(15)}) {
            LeanPipe pipe = new LeanPipe();
            pipe.send(obj);
            int lean = pipe.send(obj);
            int jdk = LeanPipe.jdkBytes(obj).length;
            assertTrue(3 * lean <= jdk, obj.getClass().getSimpleName() + ": lean " + lean + " bytes, JDK " + jdk);
        }
    }
}
