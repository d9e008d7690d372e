package io.fastrmi.fastsockets.ffm;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.BoundTransport;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A libfastrmi context through FFM. */
final class FfmTransport extends BoundTransport {

    static final int ERROR_BUFFER = 512;
    private static final int ADDRESS_MAX = 4096;

    private final NativeCalls calls;
    private final MemorySegment context;
    private final boolean maySpinOnDeadPeer;

    private FfmTransport(NativeCalls calls, TransportName name, MemorySegment context, byte[] address,
            boolean peerCanBlockOthers, boolean maySpinOnDeadPeer) {
        super(name, address, peerCanBlockOthers);
        this.calls = calls;
        this.context = context;
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
    protected NativeStream openStream(byte[] peerAddress, long localId, long peerId) throws IOException {
        return FfmStream.open(calls, this, context, peerAddress, localId, peerId, !maySpinOnDeadPeer);
    }

    @Override
    protected long contextPeersGone() {
        try {
            return (long) calls.ctxPeersGone.invokeExact(context);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_ctx_peers_gone", t);
        }
    }

    @Override
    protected long contextPeersLeft() {
        try {
            return (long) calls.ctxPeersLeft.invokeExact(context);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_ctx_peers_left", t);
        }
    }

    @Override
    protected void closeContext() {
        try {
            calls.ctxClose.invokeExact(context);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_ctx_close", t);
        }
    }

    @Override
    public void expectPeer(java.net.InetAddress ip) throws IOException {
        byte[] bytes = ip.getAddress();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(ERROR_BUFFER);
            int rc = (int) calls.expectPeer.invokeExact(context, arena.allocateFrom(ValueLayout.JAVA_BYTE, bytes),
                    (long) bytes.length, err, (long) ERROR_BUFFER);
            if (rc != 0) {
                throw new IOException("native transport " + name() + " cannot expect " + ip.getHostAddress() + ": "
                        + NativeStatus.failure("fastrmi_ctx_expect_peer", rc, err.getString(0)));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("fastrmi_ctx_expect_peer: " + t, t);
        }
    }
}
