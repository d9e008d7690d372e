package io.fastrmi.fastsockets.ffm;

import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * A libfastrmi stream through FFM. Bytes go straight between the Java array and the library, one
 * copy each way (a critical downcall that never waits); a call that must wait first waits in the
 * library with no array in hand ({@code fastrmi_wait_readable} / {@code fastrmi_wait_writable}),
 * so that the GC is never held up by a waiting thread, then copies. Nothing is allocated per call:
 * the segment view of the array last used in each direction is kept (RMI reads into and writes
 * from the same buffer call after call; escape analysis does not remove a view made per call, which
 * cost about 100 B a transfer), and the library is given the offset rather than a slice. Nothing
 * outside the heap per stream but its two error buffers.
 */
final class FfmStream implements NativeStream {

    /** Larger arrays get a view per call (its cost is nothing beside their copy), so an idle stream never keeps one alive. */
    private static final int KEPT_VIEW_MAX = 256 * 1024;

    private final NativeCalls calls;
    private final FfmTransport transport;
    private final MemorySegment stream;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment readError = arena.allocate(FfmTransport.ERROR_BUFFER);
    private final MemorySegment writeError = arena.allocate(FfmTransport.ERROR_BUFFER);
    private final Object lifecycle = new Object();
    private ArrayView readView = ArrayView.NONE;
    private ArrayView writeView = ArrayView.NONE;
    private int callsInFlight;
    private boolean aborted;
    private boolean closing;
    private boolean closed;

    private FfmStream(NativeCalls calls, FfmTransport transport, MemorySegment stream) {
        this.calls = calls;
        this.transport = transport;
        this.stream = stream;
    }

    static FfmStream open(NativeCalls calls, FfmTransport transport, MemorySegment context, byte[] peerAddress,
            long localId, long peerId) throws IOException {
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
            return new FfmStream(calls, transport, out.get(ValueLayout.ADDRESS, 0));
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("cannot open a " + transport + " stream: " + t, t);
        }
    }

    @Override
    public int read(byte[] buffer, int offset, int length, int timeoutMillis) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.length);
        if (length == 0) {
            return 0;
        }
        enter();
        try {
            MemorySegment array = readView(buffer);
            long n = (long) calls.recvNow.invokeExact(stream, array, (long) offset, (long) length, 0, readError,
                    (long) FfmTransport.ERROR_BUFFER);
            if (NativeStatus.ERR_TIMEOUT.is(n)) {
                // Nothing there: wait with no array in hand, then copy.
                n = (long) calls.waitReadable.invokeExact(stream, timeoutMillis == 0 ? -1 : timeoutMillis, readError,
                        (long) FfmTransport.ERROR_BUFFER);
                if (n < 0) {
                    throw failure("read", "fastrmi_wait_readable", n, readError);
                }
                if (n > 0) {
                    n = (long) calls.recvNow.invokeExact(stream, array, (long) offset, (long) length, 0, readError,
                            (long) FfmTransport.ERROR_BUFFER);
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
            exit();
        }
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.length);
        enter();
        try {
            long sent = 0;
            MemorySegment array = writeView(buffer);
            if (length > 0) {
                sent = (long) calls.sendNow.invokeExact(stream, array, (long) offset, (long) length, 0, writeError,
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
                long n = (long) calls.sendNow.invokeExact(stream, array, offset + sent, length - sent, 0, writeError,
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
            exit();
        }
    }

    @Override
    public int available() {
        synchronized (lifecycle) {
            if (closing || aborted) {
                return 0;
            }
            callsInFlight++;
        }
        try {
            return (int) Math.min(Integer.MAX_VALUE, (long) calls.available.invokeExact(stream));
        } catch (Throwable t) {
            return 0;
        } finally {
            exit();
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        enter();
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
            exit();
        }
    }

    /** Counts as a call in flight, so that a close on another thread frees the stream only after it. */
    @Override
    public void abort() {
        synchronized (lifecycle) {
            if (closed || aborted) {
                return;
            }
            aborted = true;
            callsInFlight++;
        }
        try {
            calls.streamAbort.invokeExact(stream);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_stream_abort", t);
        } finally {
            exit();
        }
    }

    /**
     * Frees the stream. Calls blocked on it are aborted first (they throw "Socket closed") and
     * waited for; a stream nobody is blocked on is closed in order instead, so the library still
     * sends a pending end of stream and lets data in flight reach the peer.
     */
    @Override
    public void close() {
        boolean wake;
        synchronized (lifecycle) {
            if (closed || closing) {
                return;
            }
            closing = true;
            wake = callsInFlight > 0 && !aborted;
            if (wake) {
                aborted = true;
            }
        }
        try {
            if (wake) {
                calls.streamAbort.invokeExact(stream);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_stream_abort", t);
        }
        synchronized (lifecycle) {
            while (callsInFlight > 0) {
                try {
                    lifecycle.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            closed = true;
        }
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

    private void enter() throws SocketException {
        synchronized (lifecycle) {
            if (closing || aborted) {
                throw new SocketException("Socket closed");
            }
            callsInFlight++;
        }
    }

    private void exit() {
        synchronized (lifecycle) {
            if (--callsInFlight == 0) {
                lifecycle.notifyAll();
            }
        }
    }

    /** java.net's exception and words where a socket has them; else the call and its status by name. */
    private IOException failure(String what, String call, long code, MemorySegment error) {
        if (NativeStatus.ERR_TIMEOUT.is(code)) {
            return new SocketTimeoutException(what + " timed out");
        }
        if (NativeStatus.ERR_ABORTED.is(code)) {
            return new SocketException("Socket closed");
        }
        if (NativeStatus.ERR_RESET.is(code)) {
            // java.net's words for a write to a peer that closed with data unread
            return new SocketException("Connection reset by peer (" + transport + ": " + error.getString(0) + ")");
        }
        if (NativeStatus.ERR_CLOSED.is(code)) {
            return new SocketException("Socket output is shut down");
        }
        return new IOException(what + " on a " + transport + " stream: " + NativeStatus.failure(call, code, error.getString(0)));
    }
}
