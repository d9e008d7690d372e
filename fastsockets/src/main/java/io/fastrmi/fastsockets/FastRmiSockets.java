package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.config.FastRmiConfig;
import io.fastrmi.fastsockets.config.HostPolicy;
import io.fastrmi.optrmi.JvmFingerprint;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.rmi.server.RMISocketFactory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * FastRMI's socket layer as installed in this JVM: the config, this JVM's fingerprint, the endpoints
 * known to be plain, and the one-time log lines. The agent installs it; the code woven into RMI asks
 * it for the socket factory.
 */
public final class FastRmiSockets {

    private static final System.Logger LOG = System.getLogger("io.fastrmi.fastsockets");
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private static volatile FastRmiConfig config;
    private static volatile FastRmiSocketFactory factory;
    private static final JvmFingerprint FINGERPRINT = JvmFingerprint.current();
    /** Stock RMI's limit on reading a peer's opening, which bounds our handshake too. */
    static final int HANDSHAKE_TIMEOUT_MILLIS = Integer.getInteger("sun.rmi.transport.tcp.handshakeTimeout", 60_000);

    private FastRmiSockets() {
    }

    /** Switches FastRMI sockets on for RMI's default socket factory. */
    public static synchronized void install(FastRmiConfig installed) {
        config = installed;
        factory = new FastRmiSocketFactory(installed, FINGERPRINT);
    }

    public static JvmFingerprint fingerprint() {
        return FINGERPRINT;
    }

    /**
     * The factory RMI uses where the application chose none: {@code chosenByRmi} is what RMI's
     * {@code TCPEndpoint.chooseFactory} picked, the application's global factory if it set one (left
     * alone, and said once) or RMI's default (replaced by FastRMI's).
     */
    public static RMISocketFactory choose(RMISocketFactory chosenByRmi) {
        FastRmiSocketFactory ours = factory;
        if (ours == null) {
            return chosenByRmi;
        }
        RMISocketFactory global = RMISocketFactory.getSocketFactory();
        if (global != null) {
            logOnce("global:" + global.getClass().getName(), "FastRMI: the application set a global RMISocketFactory ("
                    + global.getClass().getName() + "); FastRMI leaves it, and RMI through it stays plain");
            return chosenByRmi;
        }
        return ours;
    }

    /** RMI uses an application's own client or server socket factory for an endpoint: said once per class. */
    public static void customFactoryInUse(Object socketFactory) {
        if (socketFactory != null && factory != null) {
            String name = socketFactory.getClass().getName();
            logOnce("custom:" + name, "FastRMI: the application's socket factory " + name
                    + " is used for some remote objects; FastRMI leaves it, and RMI through it stays plain");
        }
    }

    /** A client connected to a FastRMI server socket without an offer. */
    static void noOffer(FastSocket socket) {
        HandshakeEvent event = new HandshakeEvent();
        if (event.isEnabled()) {
            event.begin();
            event.peer = peer(socket);
            event.side = "server";
            event.result = "plain";
            event.reason = "the client made no FastRMI offer (no agent, or its host is outside for it)";
            event.transport = "tcp";
            event.commit();
        }
    }

    /** The server's half of a negotiation: read the offer on {@code in}, decide, answer. */
    static void answerOffer(FastSocket socket, InputStream in) throws IOException {
        HandshakeEvent event = new HandshakeEvent();
        event.begin();
        event.peer = peer(socket);
        event.side = "server";
        try {
            Handshake.Offer offer = readOfferWithin(socket, in);
            InetAddress client = socket.getInetAddress();
            FastRmiConfig current = config;
            HostPolicy policy = current == null ? HostPolicy.OUTSIDE
                    : current.policyFor(current.usesHostNames() ? client.getHostName() : null, client);
            Handshake.Answer answer = Negotiation.answer(offer, policy, FINGERPRINT);
            Handshake.writeAnswer(socket.getOutputStream(), answer);
            socket.negotiated(answer);
            record(event, answer);
        } catch (IOException e) {
            event.result = "plain";
            event.reason = "bad handshake: " + e.getMessage();
            event.commit();
            LOG.log(System.Logger.Level.WARNING, "FastRMI: closing the connection from " + event.peer + ": "
                    + e.getMessage());
            closeQuietly(socket);
            throw e instanceof HandshakeException ? e : new HandshakeException("handshake failed: " + e.getMessage(), e);
        }
    }

    /**
     * The same limit as stock RMI's for the opening: a client that stalls inside its offer loses
     * that one connection after {@code sun.rmi.transport.tcp.handshakeTimeout}, not a thread forever.
     */
    private static Handshake.Offer readOfferWithin(Socket socket, InputStream in) throws IOException {
        int before = socket.getSoTimeout();
        int limit = HANDSHAKE_TIMEOUT_MILLIS;
        socket.setSoTimeout(before == 0 ? limit : Math.min(before, limit));
        try {
            return Handshake.readOfferBody(in);
        } catch (java.net.SocketTimeoutException e) {
            throw new HandshakeException("handshake offer not complete within " + limit + " ms", e);
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(before);
            }
        }
    }

    static void record(HandshakeEvent event, Handshake.Answer answer) {
        event.result = answer.fast() ? "fast" : "plain";
        event.reason = answer.reason();
        event.transport = answer.transport().name();
        event.optimizations = String.join(",", answer.optimizations());
        event.commit();
    }

    static String peer(Socket socket) {
        InetAddress address = socket.getInetAddress();
        return address == null ? "?" : address.getHostAddress() + ":" + socket.getPort();
    }

    static void logOnce(String key, String message) {
        if (LOGGED.add(key)) {
            LOG.log(System.Logger.Level.INFO, message);
        }
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing after a failure: the failure is what gets reported
        }
    }
}
