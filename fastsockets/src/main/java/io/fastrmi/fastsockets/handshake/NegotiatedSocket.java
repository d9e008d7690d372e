package io.fastrmi.fastsockets.handshake;

/** A socket that negotiates for itself (RMI's sockets under FastRMI): what its bytes go over. */
public interface NegotiatedSocket {

    /** The transport chosen, or {@link SocketTransport#NOT_NEGOTIATED} for a connection without a negotiation. */
    SocketTransport negotiatedTransport();
}
