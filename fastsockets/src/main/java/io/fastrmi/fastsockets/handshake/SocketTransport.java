package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.TransportName;
import java.util.Objects;

/**
 * What a socket's bytes go over, as far as FastRMI knows: nothing negotiated on it, a negotiation
 * still to come (scope = jvm runs it at the first read, write or half-close), or the transport a
 * negotiation chose. Printed as "none", "pending" or the transport's name.
 */
public record SocketTransport(Phase phase, TransportName transport) {

    public enum Phase { NOT_NEGOTIATED, PENDING, NEGOTIATED }

    public static final SocketTransport NOT_NEGOTIATED = new SocketTransport(Phase.NOT_NEGOTIATED, null);
    public static final SocketTransport PENDING = new SocketTransport(Phase.PENDING, null);

    public SocketTransport {
        if ((phase == Phase.NEGOTIATED) != (transport != null)) {
            throw new IllegalArgumentException(phase + " with transport " + transport);
        }
    }

    public static SocketTransport negotiated(TransportName transport) {
        return new SocketTransport(Phase.NEGOTIATED, Objects.requireNonNull(transport));
    }

    @Override
    public String toString() {
        return switch (phase) {
            case NOT_NEGOTIATED -> "none";
            case PENDING -> "pending";
            case NEGOTIATED -> transport.toString();
        };
    }
}
