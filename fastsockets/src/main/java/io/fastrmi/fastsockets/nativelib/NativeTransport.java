package io.fastrmi.fastsockets.nativelib;

import java.io.IOException;

/**
 * One native context (a libfabric endpoint or a UCX worker) of this JVM, shared by every stream it
 * carries. Streams are paired out of band: each end sends the other {@link #address()} and a
 * stream id of its choosing (in FastRMI's handshake), then both {@link #open} with the ids swapped.
 */
public interface NativeTransport extends AutoCloseable {

    /** "ofi:shm", "ofi:tcp;ofi_rxm", "ucx", ... */
    String name();

    /** This context's address, for the peer's {@link #open}. */
    byte[] address();

    NativeStream open(byte[] peerAddress, long localId, long peerId) throws IOException;

    /** Closes the context; its streams must be closed first. */
    @Override
    void close();
}
