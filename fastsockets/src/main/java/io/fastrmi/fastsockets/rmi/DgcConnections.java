package io.fastrmi.fastsockets.rmi;

import io.fastrmi.fastsockets.handshake.Negotiator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.rmi.dgc.DGC;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connections RMI's distributed GC makes. Receiving a stub makes a JVM call its endpoint's DGC
 * (a lease asked for at once, renewed every few minutes), often an endpoint the application never
 * calls: a job's workers that learn each other's stubs call each other's DGC, and nothing else.
 * Such a connection gets no fast path: its contexts at both ends and the handshake would cost more
 * than the few calls it carries. A DGC call that needs a new connection to an endpoint this JVM
 * has made no other connection to goes on a plain single-call one (RMI's own {@code
 * SingleOpProtocol}: no acknowledgement to wait for, closed after the call, never pooled for an
 * application's call, which gets its fast connection of its own). Where the application calls the
 * endpoint too, DGC's new connections are made as any other, so that a busy endpoint's DGC calls
 * cost no connection each.
 */
public final class DgcConnections {

    /** Why such a connection is plain, as both sides record it ({@code fastrmi.Handshake}'s reason). */
    public static final String SINGLE_CALL = "a single-call connection (RMI's SingleOpProtocol), as FastRMI makes for DGC's calls"
            + " to an endpoint not otherwise called";

    private static final ThreadLocal<Boolean> IN_DGC_CALL = new ThreadLocal<>();
    /** host:port of every endpoint this JVM made a connection to outside a DGC call. */
    private static final Set<String> CALLED = ConcurrentHashMap.newKeySet();
    private static volatile Boolean localHostKnown;

    private DgcConnections() {
    }

    /** A 1.1-stub call begins on this thread ({@code stub}: the stub it goes through). */
    public static void callBegins(Object stub) {
        if (stub instanceof DGC) {
            IN_DGC_CALL.set(Boolean.TRUE);
        }
    }

    /** That call has its connection, or failed to get one. */
    public static void callEnds() {
        IN_DGC_CALL.remove(); // not get(): on a thread with no value that would store one
    }

    /**
     * Whether the connection about to be made to {@code host:port} on this thread is to be a plain
     * single-call one; otherwise the endpoint is noted as called (outside a DGC call).
     */
    static boolean singleCall(String host, int port) {
        String endpoint = host + ":" + port;
        if (IN_DGC_CALL.get() == null) {
            CALLED.add(endpoint);
            return false;
        }
        return !CALLED.contains(endpoint) && (!CALLED.isEmpty() || localHostKnown());
    }

    /** A plain socket whose connection RMI uses for one call ({@link #reusable} says so to RMI), recorded as such. */
    static Socket singleCallSocket(InetAddress address, int port) throws IOException {
        Negotiator.noNegotiation(Negotiator.Side.CLIENT, address.getHostAddress() + ":" + port, SINGLE_CALL);
        return new SingleCallSocket(address, port);
    }

    /** Whether a {@code fastrmi.Handshake} event's result and reason are those of such a connection. */
    public static boolean recordedAsSingleCall(String result, String reason) {
        return "plain".equals(result) && SINGLE_CALL.equals(reason);
    }

    /** Whether RMI may use the connection on {@code socket} for more than one call. */
    public static boolean reusable(Socket socket) {
        return !(socket instanceof SingleCallSocket);
    }

    /**
     * Whether RMI knows this JVM's host name without a server's suggestion (its {@code
     * TCPEndpoint}'s rule). Where it does not (the local address is 127.0.0.1), a server's answer
     * to RMI's first stream connection teaches it, and a single-call connection gets no answer: so
     * one is made only once this JVM has made another connection ({@link #singleCall}).
     */
    static boolean localHostKnown() {
        Boolean known = localHostKnown;
        if (known == null) {
            known = localHostKnown(System.getProperty("java.rmi.server.hostname"));
            localHostKnown = known;
        }
        return known;
    }

    static boolean localHostKnown(String hostnameProperty) {
        if (hostnameProperty != null) {
            return true;
        }
        try {
            byte[] raw = InetAddress.getLocalHost().getAddress();
            return !(raw.length == 4 && raw[0] == 127 && raw[1] == 0 && raw[2] == 0 && raw[3] == 1);
        } catch (UnknownHostException | SecurityException e) {
            return false;
        }
    }

    /** Forgets the endpoints noted (tests). */
    static void forgetEndpoints() {
        CALLED.clear();
    }

    private static final class SingleCallSocket extends Socket {
        SingleCallSocket(InetAddress address, int port) throws IOException {
            super(address, port);
        }
    }
}
