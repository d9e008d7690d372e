package io.fastrmi.fastsockets.handshake;

import java.io.IOException;

/** A handshake record that is malformed, too large, truncated or unexpected; its connection is closed. */
public final class HandshakeException extends IOException {

    private static final long serialVersionUID = 1L;

    public HandshakeException(String message) {
        super(message);
    }

    public HandshakeException(String message, Throwable cause) {
        super(message, cause);
    }
}
