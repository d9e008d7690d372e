package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * A socket's bytes on a native stream (RMI's {@code FastSocket}, or any socket under scope = jvm),
 * with its TCP connection kept as the control channel: an orderly close sends {@link #BYE} on it
 * after the stream's end, so the peer tells a close from a death (the TCP connection ending without
 * it) and fails its stream at once when the peer dies.
 */
public final class NativeConnection {

    static final int BYE = 0x42;
    /** How much RMI's writes are gathered into before they are sent (the native library's chunk). */
    static final int GATHER = 256 * 1024;
    /** The gathering buffer's first size: RMI's small calls fit it, and it grows by doubling to GATHER. */
    static final int GATHER_START = 8 * 1024;
    /** Flushes in a row that used at most a quarter of a grown buffer before it is given back. */
    static final int SMALL_FLUSHES_TO_SHRINK = 64;
    /**
     * Sent instead by a peer that closes before it has read the answer, so before it opened its
     * end (scope = jvm negotiates lazily): this end then reads the end of the stream, as TCP's.
     */
    public static final int UNUSED = 0x55;

    /**
     * The order in which this JVM's native connections got their data after waiting for it: in a
     * callback the caller's data never comes first after its request (its handler's does), so the
     * caller nudges its handler's reader to spin and waits without spinning, and the handler
     * likewise the caller at its reply ({@link NativeStream#readAfterNudging}).
     */
    private static final ArrivalOrder ARRIVALS = new ArrivalOrder();
    /** Bytes this JVM's native connections read straight into arrays ({@link #readArray}). */
    private static final LongAdder ARRAY_BYTES_READ = new LongAdder();

    /** The socket's SO_TIMEOUT, read by every read; and what closing a stream closes (the socket). */
    private final IntSupplier soTimeoutMillis;
    private final Closeable socket;
    private final NativeStream stream;
    private final String transport;
    private final Input input = new Input();
    private final Output output;
    private volatile boolean closing;
    private volatile boolean inputShut;
    private volatile boolean outputShut;
    private volatile String peerDeath;
    private volatile boolean peerLeftUnused;
    private volatile boolean peerClosed;

    /**
     * {@code gatherUntilFlush}: for a socket whose every writer flushes at the end of its messages
     * (RMI's), writes are gathered and sent at flush; otherwise each write is sent, as java.net's.
     */
    public NativeConnection(IntSupplier soTimeoutMillis, Closeable socket, NativeStream stream, String transport,
            boolean gatherUntilFlush) {
        this.soTimeoutMillis = soTimeoutMillis;
        this.socket = socket;
        this.output = gatherUntilFlush ? new GatheringOutput() : new Output();
        this.stream = stream;
        this.transport = transport;
    }

    String transport() {
        return transport;
    }

    public InputStream input() {
        return input;
    }

    /** How many reads nudged another connection's reader (for the tests). */
    long nudgingReads() {
        return input.nudgingReads;
    }

    /**
     * Writes {@code byteLength} bytes of a primitive array (its elements in native order) from
     * {@code byteOffset}, straight from the array, after every byte written to {@link #output} before.
     */
    public void writeArray(Object array, long byteOffset, long byteLength) throws IOException {
        output.writeArray(array, byteOffset, byteLength);
    }

    public OutputStream output() {
        return output;
    }

    /**
     * Reads between 1 and {@code byteLength} bytes of a primitive array (its elements in native
     * order) from {@code byteOffset}, straight into the array, as {@link #input} reads; -1 at the
     * end of the stream. Such reads take no part in the JVM's order of arrivals: the read of the
     * frame header before them did.
     */
    public int readArray(Object array, long byteOffset, long byteLength) throws IOException {
        int n = input.read(null, array, byteOffset, byteLength);
        if (n > 0) {
            ARRAY_BYTES_READ.add(n);
        }
        return n;
    }

    /** Bytes this JVM's native connections read straight into arrays so far (diagnostics, tests). */
    public static long arrayBytesRead() {
        return ARRAY_BYTES_READ.sum();
    }

    /** The size of the buffer RMI's writes are gathered in now: 0 when none, -1 when not gathering (tests). */
    int gatherCapacity() {
        return output instanceof GatheringOutput gathering ? gathering.capacity() : -1;
    }

    /**
     * Watches the control channel from a daemon thread: its end without BYE is the peer's death;
     * UNUSED, a peer that closed without opening its end.
     */
    public void watch(InputStream controlInput, String peer) {
        Thread watcher = new Thread(new ControlWatch(controlInput, peer), "fastrmi-control " + peer);
        watcher.setDaemon(true);
        watcher.start();
    }

    /** A class, not a lambda: each lambda costs the JVM a class spun at its first use (StartupIT). */
    private final class ControlWatch implements Runnable {
        private final InputStream controlInput;
        private final String peer;

        ControlWatch(InputStream controlInput, String peer) {
            this.controlInput = controlInput;
            this.peer = peer;
        }

        @Override
        public void run() {
            int signal = readSignal(controlInput);
            if (signal == UNUSED) {
                peerLeftUnused = true;
                stream.abort();
            } else if (signal == BYE) {
                peerClosed = true;
            } else if (!closing) {
                peerDeath = "Connection reset: " + peer + " ended its control connection without closing the "
                        + transport + " stream (the peer died)";
                stream.abort();
            }
        }
    }

    /** The control channel's one byte, or -1 at its end; the application's SO_TIMEOUT is no end. */
    private static int readSignal(InputStream controlInput) {
        while (true) {
            try {
                return controlInput.read();
            } catch (SocketTimeoutException e) {
                // SO_TIMEOUT is the socket's, set for the application's reads: keep watching
            } catch (IOException e) {
                return -1;
            }
        }
    }

    /**
     * Whether the connection is known to be usable without asking the peer: neither end closed or
     * shut down any part of it, the peer neither died nor said BYE (the control channel tells both
     * as they happen), and nothing waits to be read, which an idle connection never has (RMI's
     * ping would read it as its answer, so the ping is left to judge it).
     */
    public boolean idleAndAlive() {
        return !closing && !inputShut && !outputShut && peerDeath == null && !peerLeftUnused && !peerClosed
                && stream.available() == 0;
    }

    public void shutdownInput() {
        inputShut = true;
    }

    public boolean isInputShutdown() {
        return inputShut;
    }

    public void shutdownOutput() throws IOException {
        if (output instanceof GatheringOutput gathering) {
            gathering.flush();
        }
        stream.shutdownOutput();
        outputShut = true;
    }

    public boolean isOutputShutdown() {
        return outputShut;
    }

    /** A failure of the stream, said as the peer's death when that is what it was. */
    private IOException explained(IOException failure) {
        String death = peerDeath;
        if (death == null || closing) {
            return failure;
        }
        SocketException reset = new SocketException(death);
        reset.initCause(failure);
        return reset;
    }

    /** The stream's end, then BYE, then the control socket; a reader blocked here is woken. */
    public void close(OutputStream controlOutput) {
        if (output instanceof GatheringOutput gathering) {
            gathering.flushUnlessBusy();
        }
        closing = true;
        try {
            stream.shutdownOutput();
            controlOutput.write(BYE);
            controlOutput.flush();
        } catch (IOException ignored) {
            // the peer may be gone already: closing goes on
        }
        stream.close();
    }

    private final class Input extends InputStream {
        private final byte[] one = new byte[1];
        /** Which connection's data came first after this one's last waits began (its reader's). */
        private final FirstArrival firstArrival = new FirstArrival();
        /** Reads that nudged another connection's reader (the reader's count; the tests read it after joining it). */
        private long nudgingReads;

        @Override
        public int read() throws IOException {
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return read(b, null, off, len);
        }

        /** Into {@code b}, or else straight into {@code array}'s memory, as a socket's read. */
        int read(byte[] b, Object array, long off, long len) throws IOException {
            if (inputShut) {
                return -1;
            }
            try {
                int timeoutMillis = soTimeoutMillis.getAsInt();
                int n = b != null
                        ? readInTurn(b, (int) off, (int) len, timeoutMillis)
                        : stream.readArray(array, off, len, timeoutMillis);
                if (closing) {
                    // Closed while this read waited: the end the close sent may have come back
                    // first, but java.net says "closed" to a read that a close cut short.
                    throw new SocketException("Socket closed");
                }
                return n;
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                if (peerLeftUnused && !closing) {
                    return -1;
                }
                throw explained(e);
            }
        }

        /**
         * A read that counts in the JVM's order of arrivals, and after a wait learns whose data came
         * first; when that was another connection's 3 times in a row (a callback's turns), it nudges
         * that connection's reader to spin and waits without spinning itself. Only a wait reads the
         * clock: a read that finds its bytes counts with no time (a turn of 0, the shortest nudge).
         */
        private int readInTurn(byte[] b, int off, int len, int timeoutMillis) throws IOException {
            long since = ARRIVALS.count();
            NativeConnection first = turnPartner();
            if (first != null) {
                nudgingReads++; // the reader alone writes it
            }
            int n = first != null
                    ? stream.readAfterNudging(first.stream, firstArrival.nudgedSpinNanos(), b, off, len, timeoutMillis)
                    : stream.read(b, off, len, timeoutMillis);
            if (n > 0) {
                long waitedSince = stream.lastReadWaitedSince();
                ARRIVALS.arrived(NativeConnection.this, waitedSince == 0 ? 0 : System.nanoTime());
                if (waitedSince != 0) {
                    int slot = ARRIVALS.firstSince(since);
                    long firstNanos = slot < 0 ? 0 : ARRIVALS.nanosAt(slot);
                    firstArrival.observe(slot < 0 ? null : ARRIVALS.streamAt(slot),
                            firstNanos == 0 ? 0 : firstNanos - waitedSince);
                }
            }
            return n;
        }

        /**
         * The connection whose data comes first in this one's waits when the two take turns, each
         * first in the other's waits (a callback's caller and handler); else null. Clients of one
         * server in one JVM may each find the next one's reply first, round and round: none of them
         * is the one the other waits for, and a nudge there only adds a spinner to a busy machine
         * (8 clients beside 2 busy threads: 1.11x stock's time with such nudges).
         */
        private NativeConnection turnPartner() {
            if (firstArrival.confident() instanceof NativeConnection first && first != NativeConnection.this
                    && first.input.firstArrival.confident() == NativeConnection.this) {
                return first;
            }
            return null;
        }

        @Override
        public int available() {
            return inputShut ? 0 : stream.available();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private class Output extends OutputStream {
        private final byte[] one = new byte[1];

        @Override
        public void write(int b) throws IOException {
            one[0] = (byte) b;
            write(one, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            send(b, off, len);
        }

        final void send(byte[] b, int off, int len) throws IOException {
            try {
                stream.write(b, off, len);
            } catch (IOException e) {
                throw sendFailure(e);
            }
        }

        /** A primitive array's bytes, straight from the array, after what was written before. */
        void writeArray(Object array, long byteOffset, long byteLength) throws IOException {
            try {
                stream.writeArray(array, byteOffset, byteLength);
            } catch (IOException e) {
                throw sendFailure(e);
            }
        }

        private IOException sendFailure(IOException e) {
            if (peerLeftUnused && !closing) {
                return new SocketException("Broken pipe: the peer closed the connection before using it");
            }
            return explained(e);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * RMI's output: RMI buffers 8 KiB at a time and flushes at the end of each message, so its
     * writes are gathered here, up to {@link #GATHER} bytes, and sent at its flush. A 1 MiB
     * argument then goes as 4 messages, not 128: every message costs a round trip on the tcp
     * providers, whose send completes only when the peer has it. The buffer starts at
     * {@link #GATHER_START} and grows as messages need; grown, it is given back after
     * {@link #SMALL_FLUSHES_TO_SHRINK} small messages in a row, so a connection that once carried
     * a large argument does not keep 256 KiB of heap for its small calls.
     */
    private final class GatheringOutput extends Output {
        private final ReentrantLock lock = new ReentrantLock();
        private byte[] gathered;
        private int length;
        private int smallFlushes;

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            refuseWhenShut();
            lock.lock();
            try {
                if (length + len > GATHER) {
                    sendGathered();
                }
                if (len >= GATHER) {
                    send(b, off, len);
                    return;
                }
                makeRoom(length + len);
                System.arraycopy(b, off, gathered, length, len);
                length += len;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void flush() throws IOException {
            lock.lock();
            try {
                sendGathered();
            } finally {
                lock.unlock();
            }
        }

        @Override
        void writeArray(Object array, long byteOffset, long byteLength) throws IOException {
            refuseWhenShut();
            lock.lock();
            try {
                sendGathered();
                super.writeArray(array, byteOffset, byteLength);
            } finally {
                lock.unlock();
            }
        }

        /** As the stream itself would say at once, not at a later flush. */
        private void refuseWhenShut() throws SocketException {
            if (outputShut || closing) {
                throw new SocketException(closing ? "Socket closed" : "Socket output is shutdown");
            }
        }

        /** Before a close: what was gathered goes, unless a writer is inside (close never waits for one). */
        void flushUnlessBusy() {
            if (lock.tryLock()) {
                try {
                    sendGathered();
                } catch (IOException e) {
                    // closing anyway: the write that gathered these bytes already returned
                } finally {
                    lock.unlock();
                }
            }
        }

        /** needed is at most GATHER (a larger write is sent at once). */
        private void makeRoom(int needed) {
            if (gathered != null && needed <= gathered.length) {
                return;
            }
            int size = gathered == null ? GATHER_START : gathered.length;
            while (size < needed) {
                size *= 2;
            }
            byte[] grown = new byte[Math.min(size, GATHER)];
            if (gathered != null) {
                System.arraycopy(gathered, 0, grown, 0, length);
            }
            gathered = grown;
        }

        private void sendGathered() throws IOException {
            if (length > 0) {
                int n = length;
                length = 0;
                send(gathered, 0, n);
                giveBackIfOversized(n);
            }
        }

        private void giveBackIfOversized(int sent) {
            if (gathered.length <= GATHER_START || sent > gathered.length / 4) {
                smallFlushes = 0;
            } else if (++smallFlushes >= SMALL_FLUSHES_TO_SHRINK) {
                gathered = null;
                smallFlushes = 0;
            }
        }

        /** The buffer's size now, 0 when there is none (for the tests). */
        int capacity() {
            lock.lock();
            try {
                return gathered == null ? 0 : gathered.length;
            } finally {
                lock.unlock();
            }
        }
    }
}
