package io.fastrmi.fastsockets.jni;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.BoundTransport;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.IOException;

/** A libfastrmi context through JNI. */
final class JniTransport extends BoundTransport {

    private static final int ADDRESS_MAX = 4096;

    private final long context;
    private final boolean maySpinOnDeadPeer;

    private JniTransport(TransportName name, long context, byte[] address, boolean peerCanBlockOthers,
            boolean maySpinOnDeadPeer) {
        super(name, address, peerCanBlockOthers);
        this.context = context;
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
    protected NativeStream openStream(byte[] peerAddress, long localId, long peerId) throws IOException {
        return JniStream.open(this, context, peerAddress, localId, peerId, !maySpinOnDeadPeer);
    }

    @Override
    protected long contextPeersGone() {
        return JniCalls.ctxPeersGone(context);
    }

    @Override
    protected long contextPeersLeft() {
        return JniCalls.ctxPeersLeft(context);
    }

    @Override
    protected void closeContext() {
        JniCalls.ctxClose(context);
    }

    @Override
    public void expectPeer(java.net.InetAddress ip) throws IOException {
        byte[] err = JniCalls.errorBuffer();
        int rc = JniCalls.ctxExpectPeer(context, ip.getAddress(), err);
        if (rc != 0) {
            throw new IOException("native transport " + name() + " cannot expect " + ip.getHostAddress() + ": "
                    + NativeStatus.failure("fastrmi_ctx_expect_peer", rc, JniCalls.message(err)));
        }
    }
}
