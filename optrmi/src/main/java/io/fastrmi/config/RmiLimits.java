package io.fastrmi.config;

/** Stock RMI's limits that FastRMI keeps to, read where RMI reads them. */
public final class RmiLimits {

    /** Stock RMI's limit on a connection's opening, which the handshake keeps to. */
    public static final String HANDSHAKE_TIMEOUT_PROPERTY = "sun.rmi.transport.tcp.handshakeTimeout";

    private RmiLimits() {
    }

    /**
     * Stock RMI's limit on a connection's opening, read at each connection: an application may set
     * it in {@code main}, after the agent started but before RMI reads it.
     */
    public static int handshakeTimeoutMillis() {
        return Integer.getInteger(HANDSHAKE_TIMEOUT_PROPERTY, 60_000);
    }
}
