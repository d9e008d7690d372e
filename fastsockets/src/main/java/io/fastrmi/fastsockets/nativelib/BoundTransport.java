package io.fastrmi.fastsockets.nativelib;

import io.fastrmi.config.TransportName;
import java.io.IOException;

/**
 * A libfastrmi context through one binding (FFM or JNI, which give the library's calls): which
 * streams of it are open, written once. A stream is counted before the context is used for it, so
 * that {@link #closeIfIdle} never closes a context under an opening stream; the last stream out
 * tells the idle listener; a closed context is never called again.
 */
public abstract class BoundTransport implements NativeTransport {

    private final TransportName name;
    private final byte[] address;
    private final boolean peerCanBlockOthers;
    private boolean closed;
    private int openStreams;
    private volatile Runnable idleListener;

    protected BoundTransport(TransportName name, byte[] address, boolean peerCanBlockOthers) {
        this.name = name;
        this.address = address;
        this.peerCanBlockOthers = peerCanBlockOthers;
    }

    /** Opens a stream of this context ({@code fastrmi_stream_open}); its close tells this context ({@link BoundStream}). */
    protected abstract NativeStream openStream(byte[] peerAddress, long localId, long peerId) throws IOException;

    /** {@code fastrmi_ctx_close}. */
    protected abstract void closeContext();

    /** {@code fastrmi_ctx_peers_left} of the open context. */
    protected abstract long contextPeersLeft();

    /** {@code fastrmi_ctx_peers_gone} of the open context. */
    protected abstract long contextPeersGone();

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
            openStreams++;
        }
        boolean opened = false;
        try {
            NativeStream stream = openStream(peerAddress, localId, peerId);
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
        return closed ? 0 : contextPeersGone();
    }

    @Override
    public synchronized long peersLeft() {
        return closed ? 0 : contextPeersLeft();
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
    public synchronized void close() {
        if (!closed) {
            closed = true;
            closeContext();
        }
    }

    @Override
    public String toString() {
        return name.toString();
    }
}
