package io.fastrmi.fastsockets.ffm;

import io.fastrmi.fastsockets.nativelib.CallGate;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A libfastrmi stream through FFM. Bytes go straight between the Java array and the library, one
 * copy each way (a critical downcall that never waits); a call that must wait first waits in the
 * library with no array in hand ({@code fastrmi_wait_readable} / {@code fastrmi_wait_writable}),
 * so that the GC is never held up by a waiting thread, then copies. Nothing is allocated per call:
 * the segment view of the array last used in each direction is kept (RMI reads into and writes
 * from the same buffer call after call; escape analysis does not remove a view made per call, which
 * cost about 100 B a transfer), and the library is given the offset rather than a slice. Nothing
 * outside the heap per stream but its two error buffers. No lock either ({@link CallGate}).
 *
 * <p>A context whose calls may spin for ever on a dead peer's lock (libfabric's shm) is never called
 * from a critical downcall: a thread spinning there would hold up every safepoint, and so every
 * thread of the JVM. Its streams copy through a buffer outside the heap of their own instead, and
 * call the library as an ordinary downcall, so that such a thread costs only itself.
 */
final class FfmStream implements NativeStream {

    /** Each direction's buffer outside the heap, on a context never called critically. */
    private static final int BOUNCE_BYTES = 32 * 1024;

    /** Larger arrays get a view per call (its cost is nothing beside their copy), so an idle stream never keeps one alive. */
    private static final int KEPT_VIEW_MAX = 256 * 1024;

    private final NativeCalls calls;
    private final FfmTransport transport;
    private final MemorySegment stream;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment readError = arena.allocate(FfmTransport.ERROR_BUFFER);
    private final MemorySegment writeError = arena.allocate(FfmTransport.ERROR_BUFFER);
    private final CallGate gate = new CallGate();
    private ArrayView readView = ArrayView.NONE;
    private ArrayView writeView = ArrayView.NONE;
    /** When the last read began to wait, 0 when it found its bytes at once (the reader's own). */
    private long readWaitedSince;
    /** Null where critical downcalls are safe; else where reads and writes go through. */
    private final MemorySegment readBounce;
    private final MemorySegment writeBounce;

    private FfmStream(NativeCalls calls, FfmTransport transport, MemorySegment stream, boolean critical) {
        this.calls = calls;
        this.transport = transport;
        this.stream = stream;
        this.readBounce = critical ? null : arena.allocate(BOUNCE_BYTES);
        this.writeBounce = critical ? null : arena.allocate(BOUNCE_BYTES);
    }

    static FfmStream open(NativeCalls calls, FfmTransport transport, MemorySegment context, byte[] peerAddress,
            long localId, long peerId, boolean critical) throws IOException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment peer = call.allocate(peerAddress.length);
            MemorySegment.copy(peerAddress, 0, peer, ValueLayout.JAVA_BYTE, 0, peerAddress.length);
            MemorySegment out = call.allocate(ValueLayout.ADDRESS);
            MemorySegment err = call.allocate(FfmTransport.ERROR_BUFFER);
            int rc = (int) calls.streamOpen.invokeExact(context, peer, (long) peerAddress.length, localId, peerId, out, err,
                    (long) FfmTransport.ERROR_BUFFER);
            if (rc != 0) {
                throw new IOException("cannot open a " + transport + " stream: "
                        + NativeStatus.failure("fastrmi_stream_open", rc, err.getString(0)));
            }
            return new FfmStream(calls, transport, out.get(ValueLayout.ADDRESS, 0), critical);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("cannot open a " + transport + " stream: " + t, t);
        }
    }

    @Override
    public int read(byte[] buffer, int offset, int length, int timeoutMillis) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.length);
        return read(false, buffer, offset, length, timeoutMillis);
    }

    @Override
    public int readArray(Object array, long byteOffset, long byteLength, int timeoutMillis) throws IOException {
        MemorySegment memory = primitiveArrayMemory(array);
        java.util.Objects.checkFromIndexSize(byteOffset, byteLength, memory.byteSize());
        return read(false, memory, byteOffset, (int) Math.min(byteLength, Integer.MAX_VALUE), timeoutMillis);
    }

    /**
     * Nudges {@code first}'s reader (when it is an open stream of this library) in a call of its
     * own, so that a close of {@code first} never waits for this read; then reads.
     */
    @Override
    public int readAfterNudging(NativeStream first, long spinNanos, byte[] buffer, int offset, int length,
            int timeoutMillis) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.length);
        boolean nudged = first instanceof FfmStream other && other != this && other.nudge(spinNanos);
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
            // No error buffer: this stream's reader and writer may be using theirs; a nudge of an
            // open stream cannot fail.
            return (int) calls.streamNudge.invokeExact(stream, spinNanos, MemorySegment.NULL, 0L) == 0;
        } catch (Throwable t) {
            return false;
        } finally {
            gate.exit();
        }
    }

    private int read(boolean afterNudge, byte[] buffer, int offset, int length, int timeoutMillis) throws IOException {
        return read(afterNudge, readView(buffer), offset, length, timeoutMillis);
    }

    /**
     * Into {@code memory} (an array's heap segment) from {@code offset}. {@code afterNudge}: this
     * thread nudged another stream's reader, which spins; this one waits without spinning.
     */
    private int read(boolean afterNudge, MemorySegment memory, long offset, int length, int timeoutMillis) throws IOException {
        readWaitedSince = 0;
        if (length == 0) {
            return 0;
        }
        gate.enter();
        try {
            if (readBounce != null && !afterNudge) {
                return readBounced(memory, offset, length, timeoutMillis);
            }
            long n = readNow(memory, offset, length);
            if (NativeStatus.ERR_TIMEOUT.is(n)) {
                // Nothing there: wait with no array in hand, then copy.
                readWaitedSince = System.nanoTime();
                int timeout = timeoutMillis == 0 ? -1 : timeoutMillis;
                n = afterNudge
                        ? (long) calls.waitReadableAfterNudge.invokeExact(stream, timeout, readError, (long) FfmTransport.ERROR_BUFFER)
                        : (long) calls.waitReadable.invokeExact(stream, timeout, readError, (long) FfmTransport.ERROR_BUFFER);
                if (n < 0) {
                    throw failure("read", afterNudge ? "fastrmi_wait_readable_after_nudge" : "fastrmi_wait_readable", n,
                            readError);
                }
                if (n > 0) {
                    n = readNow(memory, offset, length);
                }
            }
            if (n == 0) {
                return -1;
            }
            if (n < 0) {
                throw failure("read", "fastrmi_recv", n, readError);
            }
            return (int) n;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("read from a " + transport + " stream: " + t, t);
        } finally {
            gate.exit();
        }
    }

    /**
     * What is there now, without waiting (ERR_TIMEOUT: nothing): critically into the array's
     * {@code memory}, or as an ordinary downcall through {@link #readBounce}.
     */
    private long readNow(MemorySegment memory, long offset, int length) throws Throwable {
        if (readBounce == null) {
            return (long) calls.recvNow.invokeExact(stream, memory, offset, (long) length, 0, readError,
                    (long) FfmTransport.ERROR_BUFFER);
        }
        long n = (long) calls.recv.invokeExact(stream, readBounce, (long) Math.min(length, BOUNCE_BYTES), 0, readError,
                (long) FfmTransport.ERROR_BUFFER);
        if (n > 0) {
            MemorySegment.copy(readBounce, 0, memory, offset, n);
        }
        return n;
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.length);
        write(writeView(buffer), offset, length);
    }

    @Override
    public void writeArray(Object array, long byteOffset, long byteLength) throws IOException {
        MemorySegment memory = primitiveArrayMemory(array);
        java.util.Objects.checkFromIndexSize(byteOffset, byteLength, memory.byteSize());
        write(memory, byteOffset, byteLength);
    }

    /** Writes {@code length} bytes of {@code memory} (an array's heap segment) from {@code offset}. */
    private void write(MemorySegment memory, long offset, long length) throws IOException {
        gate.enter();
        try {
            if (writeBounce != null) {
                writeBounced(memory, offset, length);
                return;
            }
            long sent = 0;
            if (length > 0) {
                sent = (long) calls.sendNow.invokeExact(stream, memory, offset, length, 0, writeError,
                        (long) FfmTransport.ERROR_BUFFER);
                if (NativeStatus.ERR_TIMEOUT.is(sent)) {
                    sent = 0;
                } else if (sent < 0) {
                    throw failure("write", "fastrmi_send", sent, writeError);
                }
            }
            // The reader's window is full: wait for credit with no array in hand, then send the rest.
            while (sent < length) {
                int rc = (int) calls.waitWritable.invokeExact(stream, -1, writeError, (long) FfmTransport.ERROR_BUFFER);
                if (rc < 0) {
                    throw failure("write", "fastrmi_wait_writable", rc, writeError);
                }
                long n = (long) calls.sendNow.invokeExact(stream, memory, offset + sent, length - sent, 0, writeError,
                        (long) FfmTransport.ERROR_BUFFER);
                if (NativeStatus.ERR_TIMEOUT.is(n)) {
                    continue;
                }
                if (n < 0) {
                    throw failure("write", "fastrmi_send", n, writeError);
                }
                sent += n;
                if (sent == length) {
                    // A blocking send's last step (fastrmi_send of 0 bytes): let the provider finish our
                    // messages, which a receiver may pull from us, before this thread goes elsewhere.
                    n = (long) calls.send.invokeExact(stream, MemorySegment.NULL, 0L, -1, writeError,
                            (long) FfmTransport.ERROR_BUFFER);
                    if (n < 0) {
                        throw failure("write", "fastrmi_send", n, writeError);
                    }
                }
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("write to a " + transport + " stream: " + t, t);
        } finally {
            gate.exit();
        }
    }

    /** A primitive array's memory, as a heap segment. */
    private static MemorySegment primitiveArrayMemory(Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException("not an array of numbers: " + array.getClass().getName());
        };
    }

    /**
     * A read as one ordinary downcall that waits in the library if it must, through {@link
     * #readBounce}: one call where a look first would make two on most reads of a ping-pong. A read
     * that took longer than {@link WaitBudget#BLOCKED_NANOS} waited.
     */
    private int readBounced(MemorySegment memory, long offset, int length, int timeoutMillis) throws Throwable {
        long start = System.nanoTime();
        long n = (long) calls.recv.invokeExact(stream, readBounce, (long) Math.min(length, BOUNCE_BYTES),
                timeoutMillis == 0 ? -1 : timeoutMillis, readError, (long) FfmTransport.ERROR_BUFFER);
        if (System.nanoTime() - start > WaitBudget.BLOCKED_NANOS) {
            readWaitedSince = start;
        }
        if (n == 0) {
            return -1;
        }
        if (n < 0) {
            throw failure("read", "fastrmi_recv", n, readError);
        }
        MemorySegment.copy(readBounce, 0, memory, offset, n);
        return (int) n;
    }

    /** A write as ordinary downcalls, through {@link #writeBounce}; each returns once its bytes are handed over. */
    private void writeBounced(MemorySegment memory, long offset, long length) throws Throwable {
        long sent = 0;
        while (sent < length) {
            int n = (int) Math.min(length - sent, BOUNCE_BYTES);
            MemorySegment.copy(memory, offset + sent, writeBounce, 0, n);
            long rc = (long) calls.send.invokeExact(stream, writeBounce, (long) n, -1, writeError,
                    (long) FfmTransport.ERROR_BUFFER);
            if (rc < 0) {
                throw failure("write", "fastrmi_send", rc, writeError);
            }
            sent += n;
        }
    }

    @Override
    public int available() {
        if (!gate.tryEnter()) {
            return 0;
        }
        try {
            return (int) Math.min(Integer.MAX_VALUE, (long) calls.available.invokeExact(stream));
        } catch (Throwable t) {
            return 0;
        } finally {
            gate.exit();
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        gate.enter();
        try {
            int rc = (int) calls.shutdownWrite.invokeExact(stream, writeError, (long) FfmTransport.ERROR_BUFFER);
            if (rc < 0) {
                throw failure("shutdown", "fastrmi_shutdown_write", rc, writeError);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("shutdown of a " + transport + " stream: " + t, t);
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
            calls.streamAbort.invokeExact(stream);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_stream_abort", t);
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
        try {
            if (closing == CallGate.Closing.ABORT_FIRST) {
                calls.streamAbort.invokeExact(stream);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_stream_abort", t);
        }
        gate.awaitCallsOut();
        try {
            calls.streamClose.invokeExact(stream);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_stream_close", t);
        } finally {
            arena.close();
            transport.streamClosed();
        }
    }

    private MemorySegment readView(byte[] buffer) {
        ArrayView view = readView;
        if (view.array == buffer) {
            return view.segment;
        }
        view = new ArrayView(buffer);
        if (buffer.length <= KEPT_VIEW_MAX) {
            readView = view;
        }
        return view.segment;
    }

    private MemorySegment writeView(byte[] buffer) {
        ArrayView view = writeView;
        if (view.array == buffer) {
            return view.segment;
        }
        view = new ArrayView(buffer);
        if (buffer.length <= KEPT_VIEW_MAX) {
            writeView = view;
        }
        return view.segment;
    }

    /** An array and its segment, in one object so that a thread never sees one without the other. */
    private static final class ArrayView {
        static final ArrayView NONE = new ArrayView(new byte[0]);

        final byte[] array;
        final MemorySegment segment;

        ArrayView(byte[] array) {
            this.array = array;
            this.segment = MemorySegment.ofArray(array);
        }
    }

    /** java.net's exception and words where a socket has them; else the call and its status by name. */
    private IOException failure(String what, String call, long code, MemorySegment error) {
        return NativeStatus.streamFailure(what, call, code, transport, error.getString(0));
    }
}
