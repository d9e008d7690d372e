package io.fastrmi.fastsockets.nativelib;

import io.fastrmi.config.TransportName;
import java.io.IOException;

/**
 * One native context (a libfabric endpoint or a UCX worker) of this JVM, shared by every stream it
 * carries. Streams are paired out of band: each end sends the other {@link #address()} and a
 * stream id of its choosing (in FastRMI's handshake), then both {@link #open} with the ids swapped.
 */
public interface NativeTransport extends AutoCloseable {

    /** ofi:shm, ofi:tcp;ofi_rxm, ucx:shm, ... */
    TransportName name();

    /** This context's address, for the peer's {@link #open}. */
    byte[] address();

    /**
     * Opens a stream to the peer's context; {@code peerAddress} must have been checked
     * ({@link NativeAddresses#checked}).
     */
    NativeStream open(byte[] peerAddress, long localId, long peerId) throws IOException;

    /**
     * Lets a peer at {@code ip} connect to this context for the next two minutes (the kernel drops
     * everyone else's packets to a context reached by socket address); call it before the peer
     * learns {@link #address()}.
     */
    void expectPeer(java.net.InetAddress ip) throws IOException;

    /**
     * Pairs a stream over an already connected TCP socket (benchmarks and tests; RMI pairs in its
     * handshake): each end sends its address and {@code localId}, then opens with the other's.
     */
    default NativeStream openOver(java.net.Socket control, long localId) throws IOException {
        expectPeer(control.getInetAddress());
        java.io.DataOutputStream out = new java.io.DataOutputStream(control.getOutputStream());
        byte[] address = address();
        out.writeInt(address.length);
        out.write(address);
        out.writeLong(localId);
        out.flush();
        java.io.DataInputStream in = new java.io.DataInputStream(control.getInputStream());
        int length = in.readInt();
        if (length <= 0 || length > 4096) {
            throw new IOException("peer sent a native address of " + length + " bytes");
        }
        byte[] peerAddress = new byte[length];
        in.readFully(peerAddress);
        try {
            return open(NativeAddresses.checked(peerAddress, control.getInetAddress()), localId, in.readLong());
        } catch (NativeAddresses.InvalidAddressException e) {
            throw new IOException("peer sent " + e.getMessage(), e);
        }
    }

    /**
     * How many more peers streams of this context can reach, or -1 when no limit is known: an
     * {@code ofi:shm} context reaches 256 in its life ({@code fastrmi_ctx_peers_left}).
     */
    long peersLeft();

    /**
     * How many of the peers this context keeps without a stream are gone ({@code fastrmi_ctx_peers_gone}):
     * each still holds what the provider keeps for it ({@code ofi:shm}: a mapping of its region) until
     * the context closes. 0 where the backend keeps no idle peers.
     */
    default long peersGone() {
        return 0;
    }

    /**
     * Whether a peer that dies in the middle of a send can stop this context from receiving from its
     * other peers ({@code fastrmi_ctx_peer_can_block_others}: UCX's shared memory reads one FIFO in
     * order). Such a transport gives each peer a context of its own ({@code TransportContexts}).
     */
    default boolean peerCanBlockOthers() {
        return false;
    }

    /** Whether no stream of this context is open. */
    default boolean idle() {
        return false;
    }

    /**
     * Runs {@code listener} whenever the last open stream of this context closes, on the closing
     * thread and outside any lock of the context; one listener, replacing the one before.
     */
    default void onIdle(Runnable listener) {
    }

    /** Closes the context if no stream of it is open (and then no stream opens on it); true if closed. */
    boolean closeIfIdle();

    /** Closes the context; its streams must be closed first. */
    @Override
    void close();
}
