package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A callback's turns on two native connections of one JVM, the caller's and its handler's, with a
 * peer that answers each request only after calling back: once each side has seen the other's data
 * come first after its waits began, the caller's reads nudge the handler's reader and the handler's
 * reads the caller's ({@link NativeStream#readAfterNudging}), and every byte still arrives as sent.
 * A connection read by one thread only, as with many clients, nudges nobody.
 */
class NativeConnectionTurnsTest {

    private static final int CALLS = 30;
    /** The calls before both sides are confident, and slack for a scheduler that ran a side late. */
    private static final int LEARNING = 2 * FirstArrival.CONFIDENT + 4;

    /** A stream over queues: what is written goes to {@code sent}, reads take from {@code inbox}. */
    private static final class QueuedStream implements NativeStream {
        final BlockingQueue<byte[]> inbox = new LinkedBlockingQueue<>();
        final BlockingQueue<byte[]> sent = new LinkedBlockingQueue<>();
        final AtomicInteger nudgedOthers = new AtomicInteger();
        volatile NativeStream lastNudged;
        private long waitedSince;

        @Override
        public int read(byte[] buffer, int offset, int length, int timeoutMillis) throws IOException {
            waitedSince = inbox.isEmpty() ? System.nanoTime() : 0;
            try {
                byte[] message = inbox.take();
                System.arraycopy(message, 0, buffer, offset, message.length);
                return message.length;
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }

        @Override
        public int readArray(Object array, long byteOffset, long byteLength, int timeoutMillis) {
            throw new UnsupportedOperationException("these connections carry no arrays");
        }

        @Override
        public int readAfterNudging(NativeStream first, long spinNanos, byte[] buffer, int offset, int length,
                int timeoutMillis) throws IOException {
            assertTrue(spinNanos >= FirstArrival.NUDGED_SPIN_MIN_NANOS && spinNanos <= FirstArrival.NUDGED_SPIN_MAX_NANOS,
                    "nudged to spin " + spinNanos + " ns");
            nudgedOthers.incrementAndGet();
            lastNudged = first;
            return read(buffer, offset, length, timeoutMillis);
        }

        @Override
        public long lastReadWaitedSince() {
            return waitedSince;
        }

        @Override
        public void write(byte[] buffer, int offset, int length) {
            byte[] copy = new byte[length];
            System.arraycopy(buffer, offset, copy, 0, length);
            sent.add(copy);
        }

        @Override
        public void writeArray(Object array, long byteOffset, long byteLength) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int available() {
            return inbox.isEmpty() ? 0 : inbox.peek().length;
        }

        @Override
        public void shutdownOutput() {
        }

        @Override
        public void abort() {
        }

        @Override
        public void close() {
        }
    }

    private static NativeConnection connection(NativeStream stream) {
        return new NativeConnection(() -> 0, () -> { }, stream, "test", false);
    }

    @Test
    void aCallbacksCallerAndHandlerNudgeEachOther() throws Exception {
        QueuedStream caller = new QueuedStream();
        QueuedStream handler = new QueuedStream();
        NativeConnection callerConnection = connection(caller);
        NativeConnection handlerConnection = connection(handler);
        // The peer: takes a request, calls back, takes the callback's reply, answers the request; a
        // pause before each message lets the side that waits for it begin its wait first.
        Thread peer = new Thread(() -> {
            try {
                for (int i = 0; i < CALLS; i++) {
                    caller.sent.take();
                    TimeUnit.MILLISECONDS.sleep(1);
                    handler.inbox.add(new byte[] {'b'});
                    handler.sent.take();
                    TimeUnit.MILLISECONDS.sleep(1);
                    caller.inbox.add(new byte[] {'d', (byte) i});
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        AtomicReference<Throwable> handlerFailure = new AtomicReference<>();
        Thread handling = new Thread(() -> {
            try {
                InputStream in = handlerConnection.input();
                OutputStream out = handlerConnection.output();
                byte[] b = new byte[8];
                for (int i = 0; i < CALLS; i++) {
                    assertEquals(1, in.read(b, 0, b.length));
                    assertEquals('b', b[0]);
                    out.write('r');
                }
            } catch (IOException | AssertionError e) {
                handlerFailure.set(e);
            }
        });
        peer.start();
        handling.start();
        InputStream in = callerConnection.input();
        OutputStream out = callerConnection.output();
        byte[] b = new byte[8];
        for (int i = 0; i < CALLS; i++) {
            out.write('c');
            assertEquals(2, in.read(b, 0, b.length));
            assertArrayEquals(new byte[] {'d', (byte) i}, new byte[] {b[0], b[1]});
        }
        handling.join(10_000);
        peer.join(10_000);
        assertEquals(null, handlerFailure.get());
        assertTrue(caller.nudgedOthers.get() >= CALLS - LEARNING, "the caller nudged " + caller.nudgedOthers);
        assertTrue(handler.nudgedOthers.get() >= CALLS - LEARNING - 1, "the handler nudged " + handler.nudgedOthers);
        assertTrue(caller.lastNudged == handler, "the caller nudged its handler's stream");
        assertTrue(handler.lastNudged == caller, "the handler nudged its caller's stream");
    }

    @Test
    void clientsThatEachFindTheNextOnesReplyFirstNudgeNobody() throws Exception {
        QueuedStream[] streams = {new QueuedStream(), new QueuedStream(), new QueuedStream()};
        // Each round the peer takes every client's request, then answers the second, the third, the
        // first: each client's wait finds the next one's reply first, and none finds its own.
        Thread peer = new Thread(() -> {
            try {
                for (int i = 0; i < CALLS; i++) {
                    for (QueuedStream stream : streams) {
                        stream.sent.take();
                    }
                    for (int k = 1; k <= streams.length; k++) {
                        TimeUnit.MILLISECONDS.sleep(1);
                        streams[k % streams.length].inbox.add(new byte[] {(byte) i});
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        peer.start();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] clients = new Thread[streams.length];
        for (int c = 0; c < streams.length; c++) {
            NativeConnection connection = connection(streams[c]);
            clients[c] = new Thread(() -> {
                try {
                    byte[] b = new byte[8];
                    for (int i = 0; i < CALLS; i++) {
                        connection.output().write('c');
                        assertEquals(1, connection.input().read(b, 0, b.length));
                        assertEquals(i, b[0]);
                    }
                } catch (IOException | AssertionError e) {
                    failure.set(e);
                }
            });
            clients[c].start();
        }
        for (Thread client : clients) {
            client.join(10_000);
        }
        peer.join(10_000);
        assertEquals(null, failure.get());
        for (QueuedStream stream : streams) {
            assertEquals(0, stream.nudgedOthers.get());
        }
    }

    @Test
    void aLoneConnectionsReadsNudgeNobody() throws Exception {
        QueuedStream stream = new QueuedStream();
        NativeConnection connection = connection(stream);
        Thread peer = new Thread(() -> {
            try {
                for (int i = 0; i < CALLS; i++) {
                    stream.sent.take();
                    TimeUnit.MILLISECONDS.sleep(1);
                    stream.inbox.add(new byte[] {(byte) i});
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        peer.start();
        byte[] b = new byte[8];
        for (int i = 0; i < CALLS; i++) {
            connection.output().write('c');
            assertEquals(1, connection.input().read(b, 0, b.length));
            assertEquals(i, b[0]);
        }
        peer.join(10_000);
        assertEquals(0, stream.nudgedOthers.get());
    }
}
