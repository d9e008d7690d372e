package io.fastrmi.fastsockets.ffm;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A libfastrmi context through FFM. */
final class FfmTransport implements NativeTransport {

    static final int ERROR_BUFFER = 512;
    private static final int ADDRESS_MAX = 4096;

    private final NativeCalls calls;
    private final TransportName name;
    private final MemorySegment context;
    private final byte[] address;
    private final boolean peerCanBlockOthers;
    private final boolean maySpinOnDeadPeer;
    private boolean closed;
    private int openStreams;
    private volatile Runnable idleListener;

    private FfmTransport(NativeCalls calls, TransportName name, MemorySegment context, byte[] address,
            boolean peerCanBlockOthers, boolean maySpinOnDeadPeer) {
        this.calls = calls;
        this.name = name;
        this.context = context;
        this.address = address;
        this.peerCanBlockOthers = peerCanBlockOthers;
        this.maySpinOnDeadPeer = maySpinOnDeadPeer;
    }

    static FfmTransport open(NativeCalls calls, TransportName transport, int spinMicros, WaitMode wait)
            throws IOException {
        if (!transport.isNative()) {
            throw new IllegalArgumentException(transport + " is not a native transport");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment err = arena.allocate(ERROR_BUFFER);
            int rc = (int) calls.ctxOpen.invokeExact(transport.backend().nativeCode(), arena.allocateFrom(transport.provider()),
                    spinMicros, out, err, (long) ERROR_BUFFER);
            if (rc != 0) {
                throw new IOException("cannot open native transport " + transport + ": "
                        + NativeStatus.failure("fastrmi_ctx_open", rc, err.getString(0)));
            }
            MemorySegment context = out.get(ValueLayout.ADDRESS, 0);
            // The JVM's count of usable CPUs includes a container's quota, which the library cannot see.
            rc = (int) calls.ctxSetWait.invokeExact(context, wait.nativeCode(), Runtime.getRuntime().availableProcessors(),
                    err, (long) ERROR_BUFFER);
            if (rc != 0) {
                calls.ctxClose.invokeExact(context);
                throw new IOException("native transport " + transport + ": "
                        + NativeStatus.failure("fastrmi_ctx_set_wait", rc, err.getString(0)));
            }
            MemorySegment buffer = arena.allocate(ADDRESS_MAX);
            MemorySegment length = arena.allocate(ValueLayout.JAVA_LONG);
            length.set(ValueLayout.JAVA_LONG, 0, ADDRESS_MAX);
            rc = (int) calls.ctxAddress.invokeExact(context, buffer, length);
            if (rc != 0) {
                calls.ctxClose.invokeExact(context);
                throw new IOException("native transport " + transport + " has no address: "
                        + NativeStatus.failure("fastrmi_ctx_address", rc, null));
            }
            byte[] address = buffer.asSlice(0, length.get(ValueLayout.JAVA_LONG, 0)).toArray(ValueLayout.JAVA_BYTE);
            boolean peerCanBlockOthers = (int) calls.ctxPeerCanBlockOthers.invokeExact(context) != 0;
            boolean maySpinOnDeadPeer = (int) calls.ctxMaySpinOnDeadPeer.invokeExact(context) != 0;
            return new FfmTransport(calls, transport, context, address, peerCanBlockOthers, maySpinOnDeadPeer);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("native transport " + transport + ": " + t, t);
        }
    }

    @Override
    public TransportName name() {
        return name;
    }

    @Override
    public byte[] address() {
        return address.clone();
    }

    @Override
    public boolean peerCanBlockOthers() {
        return peerCanBlockOthers;
    }

    @Override
    public NativeStream open(byte[] peerAddress, long localId, long peerId) throws IOException {
        synchronized (this) {
            if (closed) {
                throw new IOException("native transport " + name + " is closed");
            }
            // Counted before the context is used, so that closeIfIdle cannot close it under us.
            openStreams++;
        }
        boolean opened = false;
        try {
            NativeStream stream = FfmStream.open(calls, this, context, peerAddress, localId, peerId, !maySpinOnDeadPeer);
            opened = true;
            return stream;
        } finally {
            if (!opened) {
                streamClosed();
            }
        }
    }

    /** A stream of this context was freed (or failed to open); the last one out tells the idle listener. */
    void streamClosed() {
        boolean nowIdle;
        synchronized (this) {
            openStreams--;
            nowIdle = openStreams == 0 && !closed;
        }
        Runnable listener = idleListener;
        if (nowIdle && listener != null) {
            listener.run();
        }
    }

    @Override
    public synchronized boolean idle() {
        return openStreams == 0;
    }

    @Override
    public void onIdle(Runnable listener) {
        idleListener = listener;
    }

    @Override
    public synchronized long peersGone() {
        if (closed) {
            return 0;
        }
        try {
            return (long) calls.ctxPeersGone.invokeExact(context);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_ctx_peers_gone", t);
        }
    }

    @Override
    public synchronized long peersLeft() {
        if (closed) {
            return 0;
        }
        try {
            return (long) calls.ctxPeersLeft.invokeExact(context);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_ctx_peers_left", t);
        }
    }

    @Override
    public synchronized boolean closeIfIdle() {
        if (openStreams > 0) {
            return false;
        }
        close();
        return true;
    }

    @Override
    public void expectPeer(java.net.InetAddress ip) throws IOException {
        byte[] bytes = ip.getAddress();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(ERROR_BUFFER);
            int rc = (int) calls.expectPeer.invokeExact(context, arena.allocateFrom(ValueLayout.JAVA_BYTE, bytes),
                    (long) bytes.length, err, (long) ERROR_BUFFER);
            if (rc != 0) {
                throw new IOException("native transport " + name + " cannot expect " + ip.getHostAddress() + ": "
                        + NativeStatus.failure("fastrmi_ctx_expect_peer", rc, err.getString(0)));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("fastrmi_ctx_expect_peer: " + t, t);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            try {
                calls.ctxClose.invokeExact(context);
            } catch (Throwable t) {
                throw new IllegalStateException("fastrmi_ctx_close", t);
            }
        }
    }

    @Override
    public String toString() {
        return name.toString();
    }
}
