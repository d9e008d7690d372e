package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.config.FastRmiConfig;
import io.fastrmi.fastsockets.config.HostPolicy;
import io.fastrmi.fastsockets.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.optrmi.Optimization;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.rmi.server.RMISocketFactory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * FastRMI's socket layer as installed in this JVM: the config, this JVM's fingerprint, the endpoints
 * known to be plain, and the one-time log lines. The agent installs it; the code woven into RMI asks
 * it for the socket factory.
 */
public final class FastRmiSockets {

    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();
    private static final int LOGGED_MAX = 1000;
    private static final String LOGGED_FULL = "\0full";

    private static volatile FastRmiConfig config;
    private static volatile FastRmiSocketFactory factory;
    /** The config's native transports, opened in the background at RMI's first use. */
    private static volatile List<TransportName> transportsToOpen = List.of();
    private static final JvmFingerprint FINGERPRINT = JvmFingerprint.current();
    /** The property of stock RMI's limit on a connection's opening, which bounds our handshake too. */
    static final String HANDSHAKE_TIMEOUT_PROPERTY = "sun.rmi.transport.tcp.handshakeTimeout";

    private FastRmiSockets() {
    }

    /** Switches FastRMI sockets on for RMI's default socket factory. */
    public static synchronized void install(FastRmiConfig installed) {
        config = installed;
        transportsToOpen = installed.allTransports();
        factory = new FastRmiSocketFactory(installed, FINGERPRINT);
    }

    public static JvmFingerprint fingerprint() {
        return FINGERPRINT;
    }

    /** The config installed; the built-in one before (a JVM without the agent never asks). */
    static FastRmiConfig config() {
        FastRmiConfig current = config;
        return current == null ? FastRmiConfig.builtIn() : current;
    }

    /** Opens the config's native transports in the background, once (see {@link NativeTransports#warmUp}). */
    static void warmUpTransports() {
        NativeTransports.warmUp(transportsToOpen);
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
        warmUpTransports();
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

    /**
     * Stock RMI's limit on a connection's opening, read at each connection: an application may set
     * it in {@code main}, after the agent started but before RMI reads it.
     */
    static int handshakeTimeoutMillis() {
        return Integer.getInteger(HANDSHAKE_TIMEOUT_PROPERTY, 60_000);
    }

    /** A negotiation that failed: the connection is closed, and the event says why. */
    static void recordFailure(HandshakeEvent event, IOException failure) {
        event.result = "failed";
        event.reason = failure instanceof java.net.SocketTimeoutException
                ? failure.getMessage() : "bad handshake: " + failure.getMessage();
        event.commit();
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
            ControlConnection connection = ControlConnection.of(socket);
            ServerPairing pairing = ServerPairing.pair(offer,
                    Negotiation.answer(offer, policy, FINGERPRINT, offered -> NativeTransports.usable(offered, connection)),
                    connection);
            Handshake.Answer answer = pairing.answer();
            Handshake.writeAnswer(socket.rawOutputStream(), answer);
            socket.negotiated(answer);
            NativeStream stream = pairing.open();
            if (stream != null) {
                socket.attach(stream, answer.transport().name().toString());
            }
            record(event, answer);
        } catch (IOException e) {
            recordFailure(event, e);
            warn("FastRMI: closing the connection from " + event.peer + ": " + e.getMessage());
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
        int limit = handshakeTimeoutMillis();
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
        event.transport = answer.transport().name().toString();
        event.optimizations = Optimization.configNames(answer.optimizations(), ",");
        event.commit();
    }

    static String peer(Socket socket) {
        InetAddress address = socket.getInetAddress();
        return address == null ? "?" : address.getHostAddress() + ":" + socket.getPort();
    }

    static void warn(String message) {
        log().log(System.Logger.Level.WARNING, message);
    }

    /**
     * Says {@code message} the first time {@code key} comes. Keys may carry what peers sent, so
     * their number is bounded: past {@link #LOGGED_MAX}, one last line says that more are not said.
     */
    static void logOnce(String key, String message) {
        if (LOGGED.size() >= LOGGED_MAX) {
            if (LOGGED.add(LOGGED_FULL)) {
                log().log(System.Logger.Level.INFO, "FastRMI: " + LOGGED_MAX + " different notes said; no more from now on");
            }
            return;
        }
        if (LOGGED.add(key)) {
            log().log(System.Logger.Level.INFO, message);
        }
    }

    /** Looked up when needed: the application's logging is not set up on the agent's start-up path. */
    private static System.Logger log() {
        return System.getLogger("io.fastrmi.fastsockets");
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing after a failure: the failure is what gets reported
        }
    }

    /**
     * What a {@link #probe} found: the server's address and the name its host was matched by, the
     * client's policy for it, the offer made (null when the host is outside and none was made), the
     * server's answer (null when it did not answer as FastRMI), and the outcome.
     */
    public record ProbeResult(InetAddress address, String matchedName, HostPolicy policy, Handshake.Offer offer,
            Handshake.Answer answer, boolean fast, String reason, String transport, Set<Optimization> optimizations) {
        public ProbeResult {
            optimizations = Set.copyOf(optimizations);
        }

        /** The server's JVM fingerprint, when it answered the offer; null otherwise. */
        public JvmFingerprint serverFingerprint() {
            return answer == null ? null : answer.fingerprint();
        }
    }

    /** {@link #probe(String, int, FastRmiConfig, int)} with RMI's handshake time limit. */
    public static ProbeResult probe(String host, int port, FastRmiConfig probeConfig) throws IOException {
        return probe(host, port, probeConfig, handshakeTimeoutMillis());
    }

    /**
     * Connects to {@code host:port} and negotiates as RMI's client side does under {@code probeConfig}
     * (the same policy lookup, offer and reading of the answer), then closes the connection without
     * sending RMI anything: for diagnostics (the agent's {@code doctor}). No plain endpoint is
     * remembered and no event is recorded. Failing to connect, a silent server (after
     * {@code timeoutMillis}) or a malformed answer is an {@link IOException}; a host that is outside is
     * still connected to, plainly, to show that it can be reached.
     */
    public static ProbeResult probe(String host, int port, FastRmiConfig probeConfig, int timeoutMillis)
            throws IOException {
        ClientHandshake.Target target = ClientHandshake.target(probeConfig, host);
        InetSocketAddress endpoint = new InetSocketAddress(target.address(), port);
        if (!target.policy().optimize()) {
            try (Socket plain = new Socket()) {
                plain.connect(endpoint, timeoutMillis);
            }
            return new ProbeResult(target.address(), target.name(), target.policy(), null, null, false,
                    ClientHandshake.OUTSIDE, "tcp", Set.of());
        }
        Handshake.Offer offer = ClientHandshake.offer(target.policy(), FINGERPRINT, NativeTransports.nextStreamId(),
                target.address());
        try (Socket socket = new Socket()) {
            socket.connect(endpoint, timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            ClientHandshake.Outcome outcome = ClientHandshake.exchange(socket, offer);
            Handshake.Answer answer = outcome.answer();
            return answer == null
                    ? new ProbeResult(target.address(), target.name(), target.policy(), offer, null, false,
                            outcome.plainReason(), "tcp", Set.of())
                    : new ProbeResult(target.address(), target.name(), target.policy(), offer, answer, answer.fast(),
                            answer.reason(), answer.transport().name().toString(), answer.optimizations());
        }
    }
}
