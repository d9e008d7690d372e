package io.fastrmi.fastsockets.rmi;

import io.fastrmi.fastsockets.nativelib.NativeLibraries;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.transport.NativeConnection;
import java.io.IOException;
import java.net.Socket;

/**
 * RMI's pooled connections, as a client takes one for a call. RMI asks the server whether a pooled
 * connection is alive ({@code TCPConnection.isDead}: a ping byte there and its answer back, a whole
 * round trip) unless the connection was last used within the last ping's round trip, which it
 * measures in whole milliseconds: once a ping has taken under a millisecond every later call pings,
 * and a call after a few milliseconds of think time always does (4 TCP segments a call instead of
 * 2, counted on stock JDK 25 with 3 and 10 ms between calls). A native connection knows without a
 * round trip: its control channel tells a peer's close and death as they happen. A connection
 * negotiated fast over TCP knows from one look at its socket: a peer's close or reset makes it
 * readable, as does anything else the ping would read as its answer.
 */
public final class PooledConnections {

    private PooledConnections() {
    }

    /**
     * Whether RMI may reuse the connection on {@code socket} without pinging the server: a
     * connection negotiated fast (native, or over TCP) that is idle and alive. A plain connection,
     * or one with something to read, gets RMI's ping. A connection used within RMI's last ping round trip ({@code lastUseMillis},
     * {@code pingRoundTripMillis}: {@code TCPConnection}'s fields) is left to RMI, which reuses it
     * without a ping anyway: the back-to-back calls of a job pay no look at the stream.
     */
    public static boolean aliveWithoutPing(Socket socket, long lastUseMillis, long pingRoundTripMillis) {
        if (pingRoundTripMillis > 0 && System.currentTimeMillis() < lastUseMillis + pingRoundTripMillis) {
            return false;
        }
        if (!(socket instanceof FastSocket fast)) {
            return false;
        }
        NativeConnection connection = fast.nativeConnection();
        if (connection != null) {
            return connection.idleAndAlive();
        }
        return fast.negotiatedFast() && idleOverTcp(fast);
    }

    /**
     * Whether a connection that is negotiated fast over TCP is idle and alive. The socket is
     * open, and neither side is shut down. The kernel holds nothing for it to read: no data, no
     * FIN and no reset. Without a library to look, RMI pings. The descriptor is still the
     * socket's: RMI asks about a connection it took off its pool, which no other thread closes.
     */
    private static boolean idleOverTcp(FastSocket socket) {
        if (socket.isClosed() || socket.isInputShutdown() || socket.isOutputShutdown()) {
            return false;
        }
        NativeLibrary library = NativeLibraries.get();
        int fd = socket.descriptorNumber();
        if (library == null || fd < 0) {
            return false;
        }
        try {
            return !library.socketReadable(fd);
        } catch (IOException e) {
            return false; // closed under us: RMI's ping finds out how
        }
    }
}
