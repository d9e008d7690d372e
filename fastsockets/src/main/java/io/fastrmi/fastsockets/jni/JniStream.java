package io.fastrmi.fastsockets.jni;

import io.fastrmi.fastsockets.nativelib.CallGate;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.IOException;
import java.util.Objects;

/**
 * A libfastrmi stream through JNI, with FFM's rules ({@code FfmStream}): bytes go straight between
 * the Java array and the library in a call that never waits (a critical region in {@code jni.c});
 * a call that must wait first waits in the library with no array in hand, then copies. A context
 * whose calls may spin for ever on a dead peer's lock (libfabric's shm) goes through a buffer
 * outside the heap of the stream's own instead, where the library call holds no array. Nothing is
 * allocated per call; the calls in flight are counted by a {@link CallGate}.
 */
final class JniStream implements NativeStream {

    /** Each direction's buffer outside the heap, on a context never called critically. */
    private static final int BOUNCE_BYTES = 32 * 1024;

    private final JniTransport transport;
    private final long stream;
    private final CallGate gate = new CallGate();
    private final byte[] readError = JniCalls.errorBuffer();
    private final byte[] writeError = JniCalls.errorBuffer();
    /** When the last read began to wait, 0 when it found its bytes at once (the reader's own). */
    private long readWaitedSince;
    /** 0 where critical copies are safe; else where reads and writes go through. */
    private final long readBounce;
    private final long writeBounce;

    private JniStream(JniTransport transport, long stream, long readBounce, long writeBounce) {
        this.transport = transport;
        this.stream = stream;
        this.readBounce = readBounce;
        this.writeBounce = writeBounce;
    }

    static JniStream open(JniTransport transport, long context, byte[] peerAddress, long localId, long peerId,
            boolean critical) throws IOException {
        byte[] err = JniCalls.errorBuffer();
        long stream = JniCalls.streamOpen(context, peerAddress, localId, peerId, err);
        if (stream < 0) {
            throw new IOException("cannot open a " + transport + " stream: "
                    + NativeStatus.failure("fastrmi_stream_open", stream, JniCalls.message(err)));
        }
        if (critical) {
            return new JniStream(transport, stream, 0, 0);
        }
        long readBounce = JniCalls.bounceOpen(BOUNCE_BYTES);
        long writeBounce = readBounce == 0 ? 0 : JniCalls.bounceOpen(BOUNCE_BYTES);
        if (writeBounce == 0) {
            JniCalls.bounceClose(readBounce);
            JniCalls.streamClose(stream);
            throw new IOException("cannot open a " + transport + " stream: no memory for its buffers");
        }
        return new JniStream(transport, stream, readBounce, writeBounce);
    }

    @Override
    public int read(byte[] buffer, int offset, int length, int timeoutMillis) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        return read(false, buffer, offset, length, timeoutMillis);
    }

    @Override
    public int readArray(Object array, long byteOffset, long byteLength, int timeoutMillis) throws IOException {
        Objects.checkFromIndexSize(byteOffset, byteLength, primitiveArrayBytes(array));
        return read(false, array, byteOffset, (int) Math.min(byteLength, Integer.MAX_VALUE), timeoutMillis);
    }

    /**
     * Nudges {@code first}'s reader (when it is an open stream of this binding) in a call of its
     * own, so that a close of {@code first} never waits for this read; then reads.
     */
    @Override
    public int readAfterNudging(NativeStream first, long spinNanos, byte[] buffer, int offset, int length,
            int timeoutMillis) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        boolean nudged = first instanceof JniStream other && other != this && other.nudge(spinNanos);
        return read(nudged, buffer, offset, length, timeoutMillis);
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
            return JniCalls.streamNudge(stream, spinNanos) == 0;
        } finally {
            gate.exit();
        }
    }

    /**
     * Into {@code array} from byte {@code offset}. {@code afterNudge}: this thread nudged another
     * stream's reader, which spins; this one waits without spinning.
     */
    private int read(boolean afterNudge, Object array, long offset, int length, int timeoutMillis) throws IOException {
        readWaitedSince = 0;
        if (length == 0) {
            return 0;
        }
        gate.enter();
        try {
            int timeout = timeoutMillis == 0 ? -1 : timeoutMillis;
            if (readBounce != 0 && !afterNudge) {
                return readBounced(array, offset, length, timeout);
            }
            long n = readNow(array, offset, length);
            if (NativeStatus.ERR_TIMEOUT.is(n)) {
                // Nothing there: wait with no array in hand, then copy.
                readWaitedSince = System.nanoTime();
                n = JniCalls.waitReadable(stream, timeout, afterNudge, readError);
                if (n < 0) {
                    throw failure("read", afterNudge ? "fastrmi_wait_readable_after_nudge" : "fastrmi_wait_readable", n,
                            readError);
                }
                if (n > 0) {
                    n = readNow(array, offset, length);
                }
            }
            if (n == 0) {
                return -1;
            }
            if (n < 0) {
                throw failure("read", "fastrmi_recv", n, readError);
            }
            return (int) n;
        } finally {
            gate.exit();
        }
    }

    /** What is there now, without waiting (ERR_TIMEOUT: nothing). */
    private long readNow(Object array, long offset, int length) {
        return readBounce == 0
                ? JniCalls.recvNow(stream, array, offset, length, readError)
                : JniCalls.recvBounced(stream, readBounce, BOUNCE_BYTES, array, offset, length, 0, readError);
    }

    /**
     * A read as one call that waits in the library if it must, through {@link #readBounce}. A read
     * that took longer than {@link WaitBudget#BLOCKED_NANOS} waited.
     */
    private int readBounced(Object array, long offset, int length, int timeout) throws IOException {
        long start = System.nanoTime();
        long n = JniCalls.recvBounced(stream, readBounce, BOUNCE_BYTES, array, offset, length, timeout, readError);
        if (System.nanoTime() - start > WaitBudget.BLOCKED_NANOS) {
            readWaitedSince = start;
        }
        if (n == 0) {
            return -1;
        }
        if (n < 0) {
            throw failure("read", "fastrmi_recv", n, readError);
        }
        return (int) n;
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        write((Object) buffer, offset, length);
    }

    @Override
    public void writeArray(Object array, long byteOffset, long byteLength) throws IOException {
        Objects.checkFromIndexSize(byteOffset, byteLength, primitiveArrayBytes(array));
        write(array, byteOffset, byteLength);
    }

    /** Writes {@code length} bytes of {@code array} from byte {@code offset}. */
    private void write(Object array, long offset, long length) throws IOException {
        gate.enter();
        try {
            if (writeBounce != 0) {
                long rc = JniCalls.sendBounced(stream, writeBounce, BOUNCE_BYTES, array, offset, length, writeError);
                if (rc < 0) {
                    throw failure("write", "fastrmi_send", rc, writeError);
                }
                return;
            }
            long sent = 0;
            if (length > 0) {
                sent = JniCalls.sendNow(stream, array, offset, length, writeError);
                if (NativeStatus.ERR_TIMEOUT.is(sent)) {
                    sent = 0;
                } else if (sent < 0) {
                    throw failure("write", "fastrmi_send", sent, writeError);
                }
            }
            // The reader's window is full: wait for credit with no array in hand, then send the rest.
            while (sent < length) {
                int rc = JniCalls.waitWritable(stream, -1, writeError);
                if (rc < 0) {
                    throw failure("write", "fastrmi_wait_writable", rc, writeError);
                }
                long n = JniCalls.sendNow(stream, array, offset + sent, length - sent, writeError);
                if (NativeStatus.ERR_TIMEOUT.is(n)) {
                    continue;
                }
                if (n < 0) {
                    throw failure("write", "fastrmi_send", n, writeError);
                }
                sent += n;
                if (sent == length) {
                    // A blocking send's last step: let the provider finish our messages, which a
                    // receiver may pull from us, before this thread goes elsewhere.
                    n = JniCalls.sendFinish(stream, writeError);
                    if (n < 0) {
                        throw failure("write", "fastrmi_send", n, writeError);
                    }
                }
            }
        } finally {
            gate.exit();
        }
    }

    /** A primitive array's size in bytes. */
    private static long primitiveArrayBytes(Object array) {
        Class<?> type = array.getClass().getComponentType();
        if (type == null || !type.isPrimitive() || type == boolean.class) {
            throw new IllegalArgumentException("not an array of numbers: " + array.getClass().getName());
        }
        int elementBytes = type == byte.class ? 1
                : type == short.class || type == char.class ? 2
                : type == int.class || type == float.class ? 4 : 8;
        return (long) elementBytes * java.lang.reflect.Array.getLength(array);
    }

    @Override
    public int available() {
        if (!gate.tryEnter()) {
            return 0;
        }
        try {
            return (int) Math.min(Integer.MAX_VALUE, JniCalls.available(stream));
        } finally {
            gate.exit();
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        gate.enter();
        try {
            int rc = JniCalls.shutdownWrite(stream, writeError);
            if (rc < 0) {
                throw failure("shutdown", "fastrmi_shutdown_write", rc, writeError);
            }
        } finally {
            gate.exit();
        }
    }

    @Override
    public void abort() {
        if (!gate.beginAbort()) {
            return;
        }
        try {
            JniCalls.streamAbort(stream);
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
            JniCalls.streamAbort(stream);
        }
        gate.awaitCallsOut();
        try {
            JniCalls.streamClose(stream);
        } finally {
            JniCalls.bounceClose(readBounce);
            JniCalls.bounceClose(writeBounce);
            transport.streamClosed();
        }
    }

    private IOException failure(String what, String call, long code, byte[] error) {
        return NativeStatus.streamFailure(what, call, code, transport, JniCalls.message(error));
    }
}
