package io.fastrmi.fastsockets.handshake;

/** A socket that negotiates for itself (RMI's sockets under FastRMI): what its bytes go over. */
public interface NegotiatedSocket {

    /** The transport chosen ("ofi:shm", "tcp", ...), or "none" for a connection without a negotiation. */
    String negotiatedTransport();
}
