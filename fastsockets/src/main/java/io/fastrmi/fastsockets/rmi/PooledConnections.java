package io.fastrmi.fastsockets.rmi;

import io.fastrmi.fastsockets.transport.NativeConnection;
import java.net.Socket;

/**
 * RMI's pooled connections, as a client takes one for a call. RMI asks the server whether a pooled
 * connection is alive ({@code TCPConnection.isDead}: a ping byte there and its answer back, a whole
 * round trip) unless the connection was last used within the last ping's round trip, which it
 * measures in whole milliseconds: once a ping has taken under a millisecond every later call pings,
 * and a call after a few milliseconds of think time always does (4 TCP segments a call instead of
 * 2, counted on stock JDK 25 with 3 and 10 ms between calls). A native connection knows without a
 * round trip: its control channel tells a peer's close and death as they happen.
 */
public final class PooledConnections {

    private PooledConnections() {
    }

    /**
     * Whether RMI may reuse the connection on {@code socket} without pinging the server: a native
     * connection that is idle and alive. Any other connection, or one with something to read,
     * gets RMI's ping. A connection used within RMI's last ping round trip ({@code lastUseMillis},
     * {@code pingRoundTripMillis}: {@code TCPConnection}'s fields) is left to RMI, which reuses it
     * without a ping anyway: the back-to-back calls of a job pay no look at the stream.
     */
    public static boolean aliveWithoutPing(Socket socket, long lastUseMillis, long pingRoundTripMillis) {
        if (pingRoundTripMillis > 0 && System.currentTimeMillis() < lastUseMillis + pingRoundTripMillis) {
            return false;
        }
        NativeConnection connection = socket instanceof FastSocket fast ? fast.nativeConnection() : null;
        return connection != null && connection.idleAndAlive();
    }
}
