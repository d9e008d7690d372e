package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.RmiLimits;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.transport.FastRmiLog;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.optrmi.Optimization;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.function.Predicate;

/**
 * One negotiation on one connection, for RMI's sockets and for scope = jvm alike.
 * <ul>
 * <li>Client: the driver sends the offer and reads the answer's first byte; then
 * {@link #readAnswerBody} and {@link #attach} (the stream the answer names carries the bytes).
 * <li>Server: {@link #readOffer}, then {@link #answer}: decide, pair, answer, attach.
 * </ul>
 * The handshake limit, the {@code fastrmi.Handshake} event and a failure (this connection closed,
 * said, wrapped) are each written here once; a driver ({@code FastRmiSocketFactory},
 * {@code ServerHandshakeInputStream}, {@code JvmSocketImpl}) only says when a step runs.
 */
public final class Negotiator {

    /** The connection a negotiation runs on, as its driver sees it. */
    public interface Connection extends AutoCloseable {

        /** "address:port" of the peer, for the event and messages. */
        String peer();

        /** The TCP connection's own streams, whatever carries the bytes later. */
        InputStream rawInput() throws IOException;

        OutputStream rawOutput() throws IOException;

        /** Both ends of the TCP connection, which the checks of a native peer's address need. */
        ControlConnection control() throws IOException;

        int readTimeout() throws IOException;

        void readTimeout(int millis) throws IOException;

        boolean isClosed();

        /** The negotiation is over with {@code answer}: from now on {@code stream} (null: the TCP connection) carries the bytes. */
        void negotiated(Handshake.Answer answer, NativeStream stream) throws IOException;

        void close() throws IOException;
    }

    /** How a server decides on an offer: for RMI ({@link Negotiation#answer}) or for bytes ({@link Negotiation#answerForBytes}). */
    public interface Decision {
        Handshake.Answer decide(Handshake.Offer offer, HostPolicy policy, JvmFingerprint local,
                Predicate<Handshake.Transport> usable);
    }

    /** A read of a handshake record, under the handshake limit. */
    public interface Read<T> {
        T read(InputStream in) throws IOException;
    }

    private final Connection connection;
    private final Side side;
    private final Scope scope;
    private final String peer;
    /** Null until JFR has started in this JVM ({@link JfrEvents}). */
    private final HandshakeEvent event;

    /** Which end of the connection negotiates; its label is what the event says. */
    public enum Side {
        CLIENT, SERVER;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Whose sockets negotiate: RMI's, or every socket of the JVM ({@code scope = jvm}). */
    public enum Scope {
        RMI, JVM;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private Negotiator(Connection connection, Side side, Scope scope) {
        this.connection = connection;
        this.side = side;
        this.scope = scope;
        this.peer = connection.peer();
        this.event = JfrEvents.started() ? Events.begun(side, peer) : null;
        if (event != null) {
            event.scope = scope.label();
        }
    }

    /** The event class, initialized (which registers it with JFR) at its first use, once JFR runs. */
    private static final class Events {
        static {
            Privileged.initialize(HandshakeEvent.class); // registered with FastRMI's permissions, not the thread's
        }

        static HandshakeEvent begun(Side side, String peer) {
            HandshakeEvent event = new HandshakeEvent();
            event.begin();
            event.side = side.label();
            event.peer = peer;
            return event;
        }
    }

    /** The client's side of a negotiation. */
    public static Negotiator client(Connection connection, Scope scope) {
        return new Negotiator(connection, Side.CLIENT, scope);
    }

    /** The server's side of a negotiation. */
    public static Negotiator server(Connection connection, Scope scope) {
        return new Negotiator(connection, Side.SERVER, scope);
    }

    /** Client: the answer's body, its first byte read by the driver. */
    public Handshake.Answer readAnswerBody() throws IOException {
        return withinHandshakeLimit(Handshake.ANSWER_BODY);
    }

    /** Client: opens this end of the stream {@code answer} names (for the offer's stream {@code localStreamId}) and hands it over. */
    public void attach(Handshake.Offer offer, Handshake.Answer answer, long localStreamId) throws IOException {
        connection.negotiated(answer, PeerEndpoints.openAnswered(offer, answer, localStreamId, connection.control()));
        record(answer);
    }

    /** Server: reads the offer with {@code read}. */
    public Handshake.Offer readOffer(Read<Handshake.Offer> read) throws IOException {
        return withinHandshakeLimit(read);
    }

    /**
     * Server: decides on {@code offer} for a client under {@code policy}, pairs the stream the
     * answer names, writes the answer and hands the stream over.
     */
    public void answer(Handshake.Offer offer, HostPolicy policy, Decision decision) throws IOException {
        ControlConnection control = connection.control();
        UsableOver usable = new UsableOver(control);
        Handshake.Answer decided = decision.decide(offer, policy, Installation.fingerprint(), usable);
        ServerPairing pairing = ServerPairing.pair(decided, usable.chosen, usable.chosenAddress, control);
        Handshake.Answer answer = pairing.answer().acknowledgedAsOffered(offer);
        Handshake.writeAnswer(connection.rawOutput(), answer);
        connection.negotiated(answer, pairing.open());
        record(answer);
    }

    /**
     * The offered transports this server can reach the client by, and the last one found so (the
     * one chosen) with the client's address as checked: the pairing takes it rather than asking the
     * kernel about the peer again. A class, not a lambda (StartupIT).
     */
    private static final class UsableOver implements Predicate<Handshake.Transport> {
        private final ControlConnection control;
        Handshake.Transport chosen;
        byte[] chosenAddress;

        UsableOver(ControlConnection control) {
            this.control = control;
        }

        @Override
        public boolean test(Handshake.Transport offered) {
            byte[] checked = PeerEndpoints.checkedIfUsable(offered, control);
            if (checked == null) {
                return false;
            }
            chosen = offered;
            chosenAddress = checked;
            return true;
        }
    }

    /** The negotiation ended plain without a failure (a standard server, a connection closed unused). */
    public void plain(String reason) {
        commit("plain", reason, TransportName.TCP.toString(), null);
    }

    /**
     * A connection with no negotiation at all ({@code reason}: the host is outside, the client made
     * no offer): recorded as plain.
     */
    public static void noNegotiation(Side side, String peer, String reason) {
        if (!JfrEvents.started()) {
            return;
        }
        HandshakeEvent event = Events.begun(side, peer);
        if (event.isEnabled()) {
            event.result = "plain";
            event.reason = reason;
            event.transport = TransportName.TCP.toString();
            event.commit();
        }
    }

    /**
     * A failed negotiation: this connection only is closed, the event and the log say why, and the
     * result is what the driver throws (a timeout stays one, as RMI's own opening would throw).
     */
    public IOException failed(IOException failure) {
        commit("failed", failure instanceof SocketTimeoutException ? failure.getMessage() : "bad handshake: " + failure.getMessage(),
                null, null);
        FastRmiLog.warn("FastRMI: closing the connection " + (side == Side.SERVER ? "from " : "to ") + peer
                + (scope == Scope.JVM ? " (scope = jvm)" : "") + ": " + failure.getMessage());
        closeQuietly(connection);
        return failure instanceof HandshakeException || failure instanceof SocketTimeoutException ? failure
                : new HandshakeException("handshake failed: " + failure.getMessage(), failure);
    }

    /**
     * Client: the stream the answer named could not be opened here; this connection is closed, and
     * the caller connects again over tcp. The event and the log say why.
     */
    public void fellBackToTcp(UnopenedEndpointException failure) {
        String reason = failure.getMessage() + "; connecting again over tcp";
        commit("fallback", reason, TransportName.TCP.toString(), null);
        FastRmiLog.once("fallback:" + peer + ":" + failure.getMessage(), "FastRMI: " + reason + " (" + peer + ")");
        closeQuietly(connection);
    }

    /** A client's offer not answered within the limit: RMI's own exception for an opening that stalls. */
    public SocketTimeoutException notAnswered(int limitMillis) {
        return new SocketTimeoutException("the FastRMI offer to " + peer + " was not answered within "
                + limitMillis + " ms (" + RmiLimits.HANDSHAKE_TIMEOUT_PROPERTY + ")");
    }

    /** Reads with stock RMI's handshake limit in place of the connection's read timeout, then puts that back. */
    private <T> T withinHandshakeLimit(Read<T> read) throws IOException {
        int before = connection.readTimeout();
        int limit = RmiLimits.handshakeTimeoutMillis();
        connection.readTimeout(limit);
        try {
            return read.read(connection.rawInput());
        } catch (SocketTimeoutException e) {
            throw new HandshakeException("FastRMI handshake not complete within " + limit + " ms ("
                    + RmiLimits.HANDSHAKE_TIMEOUT_PROPERTY + ")", e);
        } finally {
            if (!connection.isClosed()) {
                connection.readTimeout(before);
            }
        }
    }

    private void record(Handshake.Answer answer) {
        if (event != null) {
            commit(answer.fast() ? "fast" : "plain", answer.reason(), answer.transport().name().toString(),
                    Optimization.configNames(answer.optimizations(), ","));
        }
    }

    /** Ends this negotiation's event (null fields left as they are), when JFR runs. */
    private void commit(String result, String reason, String transport, String optimizations) {
        if (event == null) {
            return;
        }
        event.result = result;
        event.reason = reason;
        if (transport != null) {
            event.transport = transport;
        }
        if (optimizations != null) {
            event.optimizations = optimizations;
        }
        event.commit();
    }

    /** "address:port" of a socket's peer. */
    public static String peerOf(Socket socket) {
        InetAddress address = socket.getInetAddress();
        return address == null ? "?" : address.getHostAddress() + ":" + socket.getPort();
    }

    public static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing after a failure: the failure is what gets reported
        }
    }
}
