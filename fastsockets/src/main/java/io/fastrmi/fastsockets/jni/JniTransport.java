package io.fastrmi.fastsockets.jni;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.IOException;

/** A libfastrmi context through JNI. */
final class JniTransport implements NativeTransport {

    private static final int ADDRESS_MAX = 4096;

    private final TransportName name;
    private final long context;
    private final byte[] address;
    private final boolean peerCanBlockOthers;
    private final boolean maySpinOnDeadPeer;
    private boolean closed;
    private int openStreams;
    private volatile Runnable idleListener;

    private JniTransport(TransportName name, long context, byte[] address, boolean peerCanBlockOthers,
            boolean maySpinOnDeadPeer) {
        this.name = name;
        this.context = context;
        this.address = address;
        this.peerCanBlockOthers = peerCanBlockOthers;
        this.maySpinOnDeadPeer = maySpinOnDeadPeer;
    }

    static JniTransport open(TransportName transport, int spinMicros, WaitMode wait) throws IOException {
        if (!transport.isNative()) {
            throw new IllegalArgumentException(transport + " is not a native transport");
        }
        byte[] err = JniCalls.errorBuffer();
        long context = JniCalls.ctxOpen(transport.backend().nativeCode(), JniNativeLibrary.cString(transport.provider()),
                spinMicros, err);
        if (context < 0) {
            throw new IOException("cannot open native transport " + transport + ": "
                    + NativeStatus.failure("fastrmi_ctx_open", context, JniCalls.message(err)));
        }
        // The JVM's count of usable CPUs includes a container's quota, which the library cannot see.
        int rc = JniCalls.ctxSetWait(context, wait.nativeCode(), Runtime.getRuntime().availableProcessors(), err);
        if (rc != 0) {
            JniCalls.ctxClose(context);
            throw new IOException("native transport " + transport + ": "
                    + NativeStatus.failure("fastrmi_ctx_set_wait", rc, JniCalls.message(err)));
        }
        byte[] buffer = new byte[ADDRESS_MAX];
        int length = JniCalls.ctxAddress(context, buffer);
        if (length < 0) {
            JniCalls.ctxClose(context);
            throw new IOException("native transport " + transport + " has no address: "
                    + NativeStatus.failure("fastrmi_ctx_address", length, null));
        }
        return new JniTransport(transport, context, java.util.Arrays.copyOf(buffer, length),
                JniCalls.ctxPeerCanBlockOthers(context) != 0, JniCalls.ctxMaySpinOnDeadPeer(context) != 0);
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
            NativeStream stream = JniStream.open(this, context, peerAddress, localId, peerId, !maySpinOnDeadPeer);
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
        return closed ? 0 : JniCalls.ctxPeersGone(context);
    }

    @Override
    public synchronized long peersLeft() {
        return closed ? 0 : JniCalls.ctxPeersLeft(context);
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
        byte[] err = JniCalls.errorBuffer();
        int rc = JniCalls.ctxExpectPeer(context, ip.getAddress(), err);
        if (rc != 0) {
            throw new IOException("native transport " + name + " cannot expect " + ip.getHostAddress() + ": "
                    + NativeStatus.failure("fastrmi_ctx_expect_peer", rc, JniCalls.message(err)));
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            JniCalls.ctxClose(context);
        }
    }

    @Override
    public String toString() {
        return name.toString();
    }
}
