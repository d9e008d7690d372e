package io.fastrmi.fastsockets.ffm;

import io.fastrmi.fastsockets.nativelib.BoundStream;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A libfastrmi stream through FFM ({@link BoundStream} has how reads and writes use the calls). The
 * calls that never wait are critical downcalls with heap access: they take the Java array's own
 * segment and an offset into it (so that no slice is made per call). Nothing is allocated per call:
 * the segment view of the array last used in each direction is kept (RMI reads into and writes from
 * the same buffer call after call; escape analysis does not remove a view made per call, which cost
 * about 100 B a transfer). Nothing outside the heap per stream but its two error buffers, and a
 * bounced stream's two buffers.
 */
final class FfmStream extends BoundStream<MemorySegment> {

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
    private ArrayView readView = ArrayView.NONE;
    private ArrayView writeView = ArrayView.NONE;
    /** Null where critical downcalls are safe; else where reads and writes go through. */
    private final MemorySegment readBounce;
    private final MemorySegment writeBounce;

    private FfmStream(NativeCalls calls, FfmTransport transport, MemorySegment stream, boolean critical) {
        super(transport, !critical);
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
    protected MemorySegment readMemory(byte[] buffer) {
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

    @Override
    protected MemorySegment writeMemory(byte[] buffer) {
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

    @Override
    protected MemorySegment arrayMemory(Object array) {
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

    @Override
    protected long byteSize(MemorySegment memory) {
        return memory.byteSize();
    }

    /** Critically into the array's memory, or as an ordinary downcall through {@link #readBounce}. */
    @Override
    protected long recvNow(MemorySegment memory, long offset, int length) throws IOException {
        if (readBounce != null) {
            return recvBounced(memory, offset, length, 0);
        }
        try {
            return (long) calls.recvNow.invokeExact(stream, memory, offset, (long) length, 0, readError,
                    (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw bindingFailure("read from", t);
        }
    }

    @Override
    protected long recvReceived(MemorySegment memory, long offset, int length) throws IOException {
        try {
            return (long) calls.recvReceived.invokeExact(stream, memory, offset, (long) length);
        } catch (Throwable t) {
            throw bindingFailure("read from", t);
        }
    }

    @Override
    protected long recvBounced(MemorySegment memory, long offset, int length, int timeout) throws IOException {
        long n;
        try {
            n = (long) calls.recv.invokeExact(stream, readBounce, (long) Math.min(length, BOUNCE_BYTES), timeout, readError,
                    (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw bindingFailure("read from", t);
        }
        if (n > 0) {
            MemorySegment.copy(readBounce, 0, memory, offset, n);
        }
        return n;
    }

    @Override
    protected long waitReadable(int timeout, boolean afterNudge) throws IOException {
        try {
            return afterNudge
                    ? (long) calls.waitReadableAfterNudge.invokeExact(stream, timeout, readError, (long) FfmTransport.ERROR_BUFFER)
                    : (long) calls.waitReadable.invokeExact(stream, timeout, readError, (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw bindingFailure("read from", t);
        }
    }

    @Override
    protected long sendNow(MemorySegment memory, long offset, long length) throws IOException {
        try {
            return (long) calls.sendNow.invokeExact(stream, memory, offset, length, 0, writeError,
                    (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw bindingFailure("write to", t);
        }
    }

    /** Ordinary downcalls through {@link #writeBounce}; each returns once its bytes are handed over. */
    @Override
    protected long sendBounced(MemorySegment memory, long offset, long length) throws IOException {
        long sent = 0;
        while (sent < length) {
            int n = (int) Math.min(length - sent, BOUNCE_BYTES);
            MemorySegment.copy(memory, offset + sent, writeBounce, 0, n);
            long rc;
            try {
                rc = (long) calls.send.invokeExact(stream, writeBounce, (long) n, -1, writeError,
                        (long) FfmTransport.ERROR_BUFFER);
            } catch (Throwable t) {
                throw bindingFailure("write to", t);
            }
            if (rc < 0) {
                return rc;
            }
            sent += n;
        }
        return sent;
    }

    @Override
    protected int waitWritable() throws IOException {
        try {
            return (int) calls.waitWritable.invokeExact(stream, -1, writeError, (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw bindingFailure("write to", t);
        }
    }

    @Override
    protected long sendFinish() throws IOException {
        try {
            return (long) calls.send.invokeExact(stream, MemorySegment.NULL, 0L, -1, writeError,
                    (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw bindingFailure("write to", t);
        }
    }

    @Override
    protected boolean nudgeReader(long spinNanos) {
        try {
            // No error buffer: this stream's reader and writer may be using theirs; a nudge of an
            // open stream cannot fail.
            return (int) calls.streamNudge.invokeExact(stream, spinNanos, MemorySegment.NULL, 0L) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    @Override
    protected long availableNow() {
        try {
            return (long) calls.available.invokeExact(stream);
        } catch (Throwable t) {
            return 0;
        }
    }

    @Override
    protected int shutdownWrite() throws IOException {
        try {
            return (int) calls.shutdownWrite.invokeExact(stream, writeError, (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw bindingFailure("shutdown of", t);
        }
    }

    @Override
    protected void abortStream() {
        try {
            calls.streamAbort.invokeExact(stream);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_stream_abort", t);
        }
    }

    @Override
    protected void closeStream() {
        try {
            calls.streamClose.invokeExact(stream);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_stream_close", t);
        } finally {
            arena.close();
        }
    }

    @Override
    protected String readMessage() {
        return readError.getString(0);
    }

    @Override
    protected String writeMessage() {
        return writeError.getString(0);
    }

    /** A downcall that threw (it should not): "read from a ucx:shm stream: ...". */
    private IOException bindingFailure(String what, Throwable t) {
        return new IOException(what + " a " + transport + " stream: " + t, t);
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
}
