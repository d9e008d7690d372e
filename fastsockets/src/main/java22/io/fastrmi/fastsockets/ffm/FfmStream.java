package io.fastrmi.fastsockets.ffm;

import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * A libfastrmi stream through FFM. The fast path copies straight between the Java array and the
 * library (a critical downcall that never waits); only when it must wait does a call go through a
 * buffer of the stream's own, outside the Java heap, so that the GC is never held up by a waiting
 * thread. Nothing is allocated per call but the array's segment view, which escape analysis removes.
 */
final class FfmStream implements NativeStream {

    /** Size of the off-heap buffers used while waiting. */
    private static final int WAIT_BUFFER = 64 * 1024;

    private final NativeCalls calls;
    private final FfmTransport transport;
    private final MemorySegment stream;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment readBuffer = arena.allocate(WAIT_BUFFER);
    private final MemorySegment writeBuffer = arena.allocate(WAIT_BUFFER);
    private final MemorySegment readError = arena.allocate(FfmTransport.ERROR_BUFFER);
    private final MemorySegment writeError = arena.allocate(FfmTransport.ERROR_BUFFER);
    private final Object lifecycle = new Object();
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
                throw new IOException("cannot open a " + transport + " stream: " + err.getString(0));
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
            long n = (long) calls.recvNow.invokeExact(stream, MemorySegment.ofArray(buffer).asSlice(offset, length),
                    (long) length, 0, readError, (long) FfmTransport.ERROR_BUFFER);
            if (n == NativeCalls.ERR_TIMEOUT) {
                // Nothing there: wait outside the heap, then copy.
                int chunk = Math.min(length, WAIT_BUFFER);
                n = (long) calls.recv.invokeExact(stream, readBuffer, (long) chunk, timeoutMillis == 0 ? -1 : timeoutMillis,
                        readError, (long) FfmTransport.ERROR_BUFFER);
                if (n > 0) {
                    MemorySegment.copy(readBuffer, ValueLayout.JAVA_BYTE, 0, buffer, offset, (int) n);
                }
            }
            if (n == 0) {
                return -1;
            }
            if (n < 0) {
                throw failure("read", n, readError);
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
            if (length > 0) {
                sent = (long) calls.sendNow.invokeExact(stream, MemorySegment.ofArray(buffer).asSlice(offset, length),
                        (long) length, 0, writeError, (long) FfmTransport.ERROR_BUFFER);
                if (sent == NativeCalls.ERR_TIMEOUT) {
                    sent = 0;
                } else if (sent < 0) {
                    throw failure("write", sent, writeError);
                }
            }
            // The reader's window is full: the rest waits for credit, from a buffer outside the heap.
            while (sent < length) {
                int chunk = (int) Math.min(length - sent, WAIT_BUFFER);
                MemorySegment.copy(buffer, offset + (int) sent, writeBuffer, ValueLayout.JAVA_BYTE, 0, chunk);
                long n = (long) calls.send.invokeExact(stream, writeBuffer, (long) chunk, -1, writeError,
                        (long) FfmTransport.ERROR_BUFFER);
                if (n < 0) {
                    throw failure("write", n, writeError);
                }
                sent += n;
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
                throw failure("shutdown", rc, writeError);
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

    private IOException failure(String what, long code, MemorySegment error) {
        if (code == NativeCalls.ERR_TIMEOUT) {
            return new SocketTimeoutException(what + " timed out");
        }
        if (code == NativeCalls.ERR_ABORTED) {
            return new SocketException("Socket closed");
        }
        if (code == NativeCalls.ERR_RESET) {
            // java.net's words for a write to a peer that closed with data unread
            return new SocketException("Connection reset by peer (" + transport + ": " + error.getString(0) + ")");
        }
        if (code == NativeCalls.ERR_CLOSED) {
            return new SocketException("Socket output is shut down");
        }
        return new IOException(what + " on a " + transport + " stream failed (" + code + "): " + error.getString(0));
    }
}
