package io.fastrmi.fastsockets.handshake;

/**
 * The client could not open the native stream the server's answer named: its address did not pass
 * the checks, or the library could not reach it (a file the server published is gone, say). The
 * connection is then made again over tcp, once ({@code FastRmiSocketFactory}).
 */
public final class UnopenedEndpointException extends java.io.IOException {

    private static final long serialVersionUID = 1L;

    UnopenedEndpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
