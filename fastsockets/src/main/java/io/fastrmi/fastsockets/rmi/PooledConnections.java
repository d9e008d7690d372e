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

    /**
     * Reuses RMI would make without a ping anyway are looked at too, one in 16, so that the JIT
     * sees every way through here while a job's calls come back to back. A way never taken there
     * compiles to a trap: the first call after think time then deoptimized RMI's whole {@code
     * UnicastRef.invoke}, which ran interpreted and recompiled through the next hundreds of calls.
     * A look costs a poll of the socket or stream; its answer is RMI's anyway (alive).
     */
    private static final int LOOK_IN_WINDOW_MASK = 15;
    /** Counted without a lock: a lost count only moves the next look. */
    private static int reusesInWindow;

    private PooledConnections() {
    }

    /**
     * Whether RMI may reuse the connection on {@code socket} without pinging the server: a
     * connection negotiated fast (native, or over TCP) that is idle and alive. A plain connection,
     * or one with something to read, gets RMI's ping. A connection used within RMI's last ping round trip ({@code lastUseMillis},
     * {@code pingRoundTripMillis}: {@code TCPConnection}'s fields) is left to RMI, which reuses it
     * without a ping anyway, but for one look in 16 ({@link #LOOK_IN_WINDOW_MASK}).
     */
    public static boolean aliveWithoutPing(Socket socket, long lastUseMillis, long pingRoundTripMillis) {
        // One branch, taken both ways in a run of calls (see LOOK_IN_WINDOW_MASK).
        int sampled = ((++reusesInWindow & LOOK_IN_WINDOW_MASK) - 1) >>> 31;
        if ((rmiReusesWithoutPing(lastUseMillis, pingRoundTripMillis, System.currentTimeMillis()) & (sampled ^ 1)) != 0) {
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
     * 1 where RMI reuses a connection without a ping ({@code TCPConnection.isDead}: a ping round
     * trip measured, {@code roundTrip > 0}, and the connection used within it), else 0; worked out
     * without a branch, so that no way through {@link #aliveWithoutPing} is one a run of calls
     * never takes: the sign bit of two values that are both negative exactly then.
     */
    static int rmiReusesWithoutPing(long lastUseMillis, long roundTripMillis, long nowMillis) {
        return (int) ((-roundTripMillis & (nowMillis - lastUseMillis - roundTripMillis)) >>> 63);
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
