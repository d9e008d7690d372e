package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How writes reach the native stream: each at once (java.net's way), or gathered until RMI's flush. */
class NativeConnectionTest {

    /** The sends a connection makes, as the stream sees them. */
    private static final class SendsSeen implements NativeStream {
        final List<Integer> sends = new ArrayList<>();
        final List<Object> arrays = new ArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean ended;

        @Override
        public int read(byte[] buffer, int offset, int length, int timeoutMillis) {
            return -1;
        }

        @Override
        public int readArray(Object array, long byteOffset, long byteLength, int timeoutMillis) {
            return -1;
        }

        @Override
        public int readAfterNudging(NativeStream first, long spinNanos, byte[] buffer, int offset, int length,
                int timeoutMillis) {
            return -1;
        }

        @Override
        public long lastReadWaitedSince() {
            return 0;
        }

        @Override
        public void write(byte[] buffer, int offset, int length) {
            sends.add(length);
            bytes.write(buffer, offset, length);
        }

        @Override
        public void writeArray(Object array, long byteOffset, long byteLength) {
            arrays.add(array);
            sends.add((int) byteLength);
        }

        @Override
        public int available() {
            return 0;
        }

        @Override
        public void shutdownOutput() {
            ended = true;
        }

        @Override
        public void abort() {
        }

        @Override
        public void close() {
        }
    }

    private static NativeConnection connection(SendsSeen stream, boolean gather) {
        return new NativeConnection(() -> 0, () -> { }, stream, "test", gather);
    }

    @Test
    void javaNetsWayEachWriteIsSentAtOnce() throws Exception {
        SendsSeen stream = new SendsSeen();
        OutputStream out = connection(stream, false).output();
        out.write(new byte[10]);
        out.write(7);
        assertEquals(List.of(10, 1), stream.sends);
    }

    @Test
    void rmisWayWritesAreGatheredUntilFlush() throws Exception {
        SendsSeen stream = new SendsSeen();
        OutputStream out = connection(stream, true).output();
        byte[] message = new byte[8192];
        for (int i = 0; i < message.length; i++) {
            message[i] = (byte) i;
        }
        for (int i = 0; i < 3; i++) {
            out.write(message);
        }
        out.write(1);
        assertEquals(List.of(), stream.sends, "nothing is sent before the flush");
        out.flush();
        assertEquals(List.of(3 * 8192 + 1), stream.sends);
        byte[] sent = stream.bytes.toByteArray();
        assertArrayEquals(message, java.util.Arrays.copyOfRange(sent, 8192, 2 * 8192));
        assertEquals(1, sent[sent.length - 1]);
    }

    @Test
    void aFullGatherIsSentAndALargeWriteGoesAtOnce() throws Exception {
        SendsSeen stream = new SendsSeen();
        OutputStream out = connection(stream, true).output();
        out.write(new byte[NativeConnection.GATHER - 10]);
        out.write(new byte[20]);
        assertEquals(List.of(NativeConnection.GATHER - 10), stream.sends, "what did not fit went first");
        out.write(new byte[NativeConnection.GATHER]);
        assertEquals(List.of(NativeConnection.GATHER - 10, 20, NativeConnection.GATHER), stream.sends);
    }

    @Test
    void anArrayGoesStraightFromItselfAfterWhatWasGathered() throws Exception {
        SendsSeen stream = new SendsSeen();
        NativeConnection connection = connection(stream, true);
        connection.output().write(new byte[100]);
        double[] array = new double[1000];
        connection.writeArray(array, 0, 8000);
        assertEquals(List.of(100, 8000), stream.sends, "the gathered bytes first, then the array's");
        assertSame(array, stream.arrays.get(0));
        connection.shutdownOutput();
        assertThrows(SocketException.class, () -> connection.writeArray(array, 0, 8), "as a write after shutdownOutput");
    }

    @Test
    void theGatherBufferStartsSmallGrowsAsMessagesNeedAndIsGivenBackAfterSmallOnes() throws Exception {
        SendsSeen stream = new SendsSeen();
        NativeConnection connection = connection(stream, true);
        OutputStream out = connection.output();
        assertEquals(0, connection.gatherCapacity(), "nothing before the first write");
        out.write(new byte[100]);
        out.flush();
        assertEquals(NativeConnection.GATHER_START, connection.gatherCapacity(), "a small call");
        byte[] large = new byte[200 * 1024];
        for (int i = 0; i < large.length; i++) {
            large[i] = (byte) (i * 31);
        }
        for (int off = 0; off < large.length; off += 8192) {
            out.write(large, off, 8192); // RMI writes 8 KiB at a time
        }
        out.flush();
        assertEquals(NativeConnection.GATHER, connection.gatherCapacity(), "grown to the large message");
        assertArrayEquals(large, java.util.Arrays.copyOfRange(stream.bytes.toByteArray(), 100, 100 + large.length),
                "growing kept every byte in order");
        for (int i = 1; i < NativeConnection.SMALL_FLUSHES_TO_SHRINK; i++) {
            out.write(new byte[100]);
            out.flush();
        }
        assertEquals(NativeConnection.GATHER, connection.gatherCapacity(), "kept while large messages may come back");
        out.write(new byte[100]);
        out.flush();
        assertEquals(0, connection.gatherCapacity(), "given back after small messages in a row");
        out.write(new byte[100]);
        assertEquals(NativeConnection.GATHER_START, connection.gatherCapacity(), "and small again");
        assertEquals(1 + 1 + NativeConnection.SMALL_FLUSHES_TO_SHRINK, stream.sends.size());
    }

    @Test
    void javaNetsWayHasNoGatherBuffer() {
        assertEquals(-1, connection(new SendsSeen(), false).gatherCapacity());
    }

    @Test
    void shutdownOutputSendsWhatWasGatheredThenTheEndAndRefusesMore() throws Exception {
        SendsSeen stream = new SendsSeen();
        NativeConnection connection = connection(stream, true);
        connection.output().write(new byte[100]);
        connection.shutdownOutput();
        assertEquals(List.of(100), stream.sends);
        assertTrue(stream.ended);
        assertThrows(SocketException.class, () -> connection.output().write(1));
    }

    @Test
    void closeSendsWhatWasGatheredFirst() throws Exception {
        SendsSeen stream = new SendsSeen();
        NativeConnection connection = connection(stream, true);
        connection.output().write(new byte[100]);
        connection.close(OutputStream.nullOutputStream());
        assertEquals(List.of(100), stream.sends);
        assertTrue(stream.ended);
    }
}
