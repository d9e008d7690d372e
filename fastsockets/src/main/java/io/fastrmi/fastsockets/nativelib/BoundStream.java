package io.fastrmi.fastsockets.nativelib;

import java.io.IOException;
import java.util.Objects;

/**
 * A libfastrmi stream through one binding (FFM or JNI, which give the library's calls): how a read
 * and a write use them, written once. Bytes go straight between the Java array and the library in a
 * call that never waits (one copy each way); a call that must wait first waits in the library with
 * no array in hand, so that the GC is never held up by a waiting thread, then copies. A context whose
 * calls may spin for ever on a dead peer's lock (libfabric's shm) is never called with an array in
 * hand: its streams are {@code bounced}, copying through a buffer outside the heap of their own with
 * ordinary calls, so that such a thread costs only itself; only their bulk reads take bytes already
 * received straight into the array, with a call that waits for nothing, not even a lock. No lock: the calls in flight are counted
 * by a {@link CallGate}, so the library's own lock is the only one a transfer takes.
 *
 * @param <M> how the binding names an array's memory (FFM: a heap segment; JNI: the array)
 */
public abstract class BoundStream<M> implements NativeStream {

    /**
     * A bounced stream's reads of at least this many bytes (bulk arrays) wait with no array in hand
     * and then copy what was received straight into the array, as an unbounced stream's do: one
     * copy less than through the buffer, for one call more than a small read needs.
     */
    static final int BULK_READ_MIN = 32 * 1024;

    private final BoundTransport transport;
    private final boolean bounced;
    private final CallGate gate = new CallGate();
    /** When the last read began to wait, 0 when it found its bytes at once (the reader's own). */
    private long readWaitedSince;

    protected BoundStream(BoundTransport transport, boolean bounced) {
        this.transport = transport;
        this.bounced = bounced;
    }

    /** A byte array's memory to read into, or to write from: the binding may keep a view per direction. */
    protected abstract M readMemory(byte[] buffer);

    protected abstract M writeMemory(byte[] buffer);

    /** A primitive array's memory; IllegalArgumentException for any other object. */
    protected abstract M arrayMemory(Object array);

    protected abstract long byteSize(M memory);

    /** {@code fastrmi_recv} of what is there now (timeout 0): a count, ERR_TIMEOUT for nothing, or a status. */
    protected abstract long recvNow(M memory, long offset, int length) throws IOException;

    /**
     * {@code fastrmi_recv_received_at}: bytes already received, straight into the array, on any
     * context (it waits for nothing, not even a lock); a count, or ERR_TIMEOUT for none.
     */
    protected abstract long recvReceived(M memory, long offset, int length) throws IOException;

    /** A bounced stream's {@code fastrmi_recv}, waiting as {@code timeout} says (-1: for ever). */
    protected abstract long recvBounced(M memory, long offset, int length, int timeout) throws IOException;

    /** {@code fastrmi_wait_readable} (or its {@code _after_nudge} form): the bytes there, or a status. */
    protected abstract long waitReadable(int timeout, boolean afterNudge) throws IOException;

    /** {@code fastrmi_send} of what the window takes now (timeout 0): a count, ERR_TIMEOUT for none, or a status. */
    protected abstract long sendNow(M memory, long offset, long length) throws IOException;

    /** A bounced stream's send of every byte, each piece handed over before the next: a status when negative. */
    protected abstract long sendBounced(M memory, long offset, long length) throws IOException;

    /** {@code fastrmi_wait_writable} for ever. */
    protected abstract int waitWritable() throws IOException;

    /** A blocking send's last step ({@code fastrmi_send} of 0 bytes): the provider finishes our messages. */
    protected abstract long sendFinish() throws IOException;

    /** {@code fastrmi_stream_nudge}: whether it nudged (it cannot fail on an open stream). */
    protected abstract boolean nudgeReader(long spinNanos);

    protected abstract long availableNow();

    protected abstract int shutdownWrite() throws IOException;

    /** {@code fastrmi_stream_abort}. */
    protected abstract void abortStream();

    /** {@code fastrmi_stream_close}, then whatever the binding keeps per stream. */
    protected abstract void closeStream();

    /** The library's message of the last failed read, or write. */
    protected abstract String readMessage();

    protected abstract String writeMessage();

    @Override
    public int read(byte[] buffer, int offset, int length, int timeoutMillis) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        return read(false, readMemory(buffer), offset, length, timeoutMillis);
    }

    @Override
    public int readArray(Object array, long byteOffset, long byteLength, int timeoutMillis) throws IOException {
        M memory = arrayMemory(array);
        Objects.checkFromIndexSize(byteOffset, byteLength, byteSize(memory));
        return read(false, memory, byteOffset, (int) Math.min(byteLength, Integer.MAX_VALUE), timeoutMillis);
    }

    /**
     * Nudges {@code first}'s reader (when it is an open stream of this binding) in a call of its
     * own, so that a close of {@code first} never waits for this read; then reads.
     */
    @Override
    public int readAfterNudging(NativeStream first, long spinNanos, byte[] buffer, int offset, int length,
            int timeoutMillis) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        boolean nudged = first instanceof BoundStream<?> other && other != this && other.getClass() == getClass()
                && other.nudge(spinNanos);
        return read(nudged, readMemory(buffer), offset, length, timeoutMillis);
    }

    @Override
    public long lastReadWaitedSince() {
        return readWaitedSince;
    }

    /** Whether this stream's reader was nudged; false once the stream is closing, aborted or failed. */
    private boolean nudge(long spinNanos) {
        if (!gate.tryEnter()) {
            return false;
        }
        try {
            return nudgeReader(spinNanos);
        } finally {
            gate.exit();
        }
    }

    /**
     * Into {@code memory} from {@code offset}. {@code afterNudge}: this thread nudged another
     * stream's reader, which spins; this one waits without spinning.
     */
    private int read(boolean afterNudge, M memory, long offset, int length, int timeoutMillis) throws IOException {
        readWaitedSince = 0;
        if (length == 0) {
            return 0;
        }
        gate.enter();
        try {
            int timeout = timeoutMillis == 0 ? -1 : timeoutMillis;
            long n;
            if (bounced && !afterNudge && !takesReceived(length)) {
                // One call that waits in the library if it must: a look first would make two on
                // most reads of a ping-pong. A read that took longer than a look waited.
                long start = System.nanoTime();
                n = recvBounced(memory, offset, length, timeout);
                if (System.nanoTime() - start > WaitBudget.BLOCKED_NANOS) {
                    readWaitedSince = start;
                }
            } else {
                n = takeNow(memory, offset, length);
                if (NativeStatus.ERR_TIMEOUT.is(n)) {
                    // Nothing there: wait with no array in hand, then copy.
                    readWaitedSince = System.nanoTime();
                    n = waitReadable(timeout, afterNudge);
                    if (n < 0) {
                        throw failure("read",
                                afterNudge ? "fastrmi_wait_readable_after_nudge" : "fastrmi_wait_readable", n,
                                readMessage());
                    }
                    if (n > 0) {
                        n = takeNow(memory, offset, length);
                    }
                }
            }
            if (n == 0) {
                return -1;
            }
            if (n < 0) {
                throw failure("read", "fastrmi_recv", n, readMessage());
            }
            return (int) n;
        } finally {
            gate.exit();
        }
    }

    /**
     * What is there now, without waiting: a bounced stream's bulk read takes what it can straight
     * into the array, and what it cannot (bytes not yet taken off the transport, credit owed, a
     * busy lock) through its buffer.
     */
    private long takeNow(M memory, long offset, int length) throws IOException {
        if (!takesReceived(length)) {
            return recvNow(memory, offset, length);
        }
        long n = recvReceived(memory, offset, length);
        return NativeStatus.ERR_TIMEOUT.is(n) ? recvNow(memory, offset, length) : n;
    }

    /** Whether a read of {@code length} bytes takes received bytes straight into the array (a bounced stream's bulk read). */
    private boolean takesReceived(int length) {
        return bounced && length >= BULK_READ_MIN;
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        write(writeMemory(buffer), offset, length);
    }

    @Override
    public void writeArray(Object array, long byteOffset, long byteLength) throws IOException {
        M memory = arrayMemory(array);
        Objects.checkFromIndexSize(byteOffset, byteLength, byteSize(memory));
        write(memory, byteOffset, byteLength);
    }

    /** Writes {@code length} bytes of {@code memory} from {@code offset}. */
    private void write(M memory, long offset, long length) throws IOException {
        gate.enter();
        try {
            if (bounced) {
                long rc = sendBounced(memory, offset, length);
                if (rc < 0) {
                    throw failure("write", "fastrmi_send", rc, writeMessage());
                }
                return;
            }
            long sent = 0;
            if (length > 0) {
                sent = sendNow(memory, offset, length);
                if (NativeStatus.ERR_TIMEOUT.is(sent)) {
                    sent = 0;
                } else if (sent < 0) {
                    throw failure("write", "fastrmi_send", sent, writeMessage());
                }
            }
            // The reader's window is full: wait for credit with no array in hand, then send the rest.
            while (sent < length) {
                int rc = waitWritable();
                if (rc < 0) {
                    throw failure("write", "fastrmi_wait_writable", rc, writeMessage());
                }
                long n = sendNow(memory, offset + sent, length - sent);
                if (NativeStatus.ERR_TIMEOUT.is(n)) {
                    continue;
                }
                if (n < 0) {
                    throw failure("write", "fastrmi_send", n, writeMessage());
                }
                sent += n;
                if (sent == length) {
                    // Let the provider finish our messages, which a receiver may pull from us,
                    // before this thread goes elsewhere.
                    n = sendFinish();
                    if (n < 0) {
                        throw failure("write", "fastrmi_send", n, writeMessage());
                    }
                }
            }
        } finally {
            gate.exit();
        }
    }

    @Override
    public int available() {
        if (!gate.tryEnter()) {
            return 0;
        }
        try {
            return (int) Math.min(Integer.MAX_VALUE, availableNow());
        } finally {
            gate.exit();
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        gate.enter();
        try {
            int rc = shutdownWrite();
            if (rc < 0) {
                throw failure("shutdown", "fastrmi_shutdown_write", rc, writeMessage());
            }
        } finally {
            gate.exit();
        }
    }

    /** Counts as a call in flight, so that a close on another thread frees the stream only after it. */
    @Override
    public void abort() {
        if (!gate.beginAbort()) {
            return;
        }
        try {
            abortStream();
        } finally {
            gate.exit();
        }
    }

    /**
     * Frees the stream. Calls blocked on it are aborted first (they throw "Socket closed") and
     * waited for; a stream nobody is blocked on is closed in order instead, so the library still
     * sends a pending end of stream and lets data in flight reach the peer.
     */
    @Override
    public void close() {
        CallGate.Closing closing = gate.beginClose();
        if (closing == CallGate.Closing.NOTHING) {
            return;
        }
        if (closing == CallGate.Closing.ABORT_FIRST) {
            abortStream();
        }
        gate.awaitCallsOut();
        try {
            closeStream();
        } finally {
            transport.streamClosed();
        }
    }

    /** java.net's exception and words where a socket has them; else the call and its status by name. */
    private IOException failure(String what, String call, long code, String message) {
        return NativeStatus.streamFailure(what, call, code, transport, message);
    }
}
