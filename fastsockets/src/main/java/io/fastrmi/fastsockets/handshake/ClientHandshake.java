package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.transport.NativeTransports;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.function.Function;

/**
 * The client's half of a negotiation, shared by RMI's sockets and {@code doctor}: which policy
 * applies to a server, and the offer and answer on a connected socket.
 */
public final class ClientHandshake {

    public static final String OUTSIDE = "server host is outside per the client's config";
    static final String NACK = "no FastRMI agent on the server (ProtocolNack)";
    public static final String CLOSED = "the server closed the connection on the FastRMI offer";
    public static final String RESET_ON_OFFER = "the connection reset during the FastRMI offer";

    private ClientHandshake() {
    }

    /** A server as the client's config sees it: its address, the name it was matched by, its policy. */
    public record Target(InetAddress address, String name, HostPolicy policy) {
    }

    /**
     * What came back: the server's answer, or (null answer) why the connection must be plain;
     * {@code refused}: a standard server said so with its ProtocolNack (its endpoint may be
     * remembered as plain).
     */
    public record Outcome(Handshake.Answer answer, String plainReason, boolean refused) {
        Outcome(Handshake.Answer answer, String plainReason) {
            this(answer, plainReason, answer == null);
        }
    }

    public static Target target(FastRmiConfig config, String host) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        // RMI mostly connects to the address a remote object advertises: a config that names hosts
        // needs the name behind it (a reverse lookup, as on the server side).
        String name = config.usesHostNames() && host.equals(address.getHostAddress()) ? address.getHostName() : host;
        return new Target(address, name, config.policyFor(name, address));
    }

    /**
     * The offer RMI's client side makes under {@code policy} to the server at {@code server}: the
     * native transports of the list that this JVM can open and that let the server in, with their
     * endpoints for stream {@code localStreamId}, then tcp.
     */
    public static Handshake.Offer offer(HostPolicy policy, io.fastrmi.optrmi.JvmFingerprint fingerprint,
            long localStreamId, InetSocketAddress server) {
        return Negotiation.offer(policy, fingerprint, new OfferedEndpoints(localStreamId, server));
    }

    /** A class, not a lambda: each lambda costs the JVM a class spun at its first use (StartupIT). */
    private static final class OfferedEndpoints implements Function<TransportName, String> {
        private final long localStreamId;
        private final InetSocketAddress server;

        OfferedEndpoints(long localStreamId, InetSocketAddress server) {
            this.localStreamId = localStreamId;
            this.server = server;
        }

        @Override
        public String apply(TransportName name) {
            return PeerEndpoints.offeredEndpoint(name, localStreamId, server);
        }
    }

    /** As above, for a fresh stream id: an offer made to see what the server answers (doctor). */
    public static Handshake.Offer offer(HostPolicy policy, io.fastrmi.optrmi.JvmFingerprint fingerprint,
            InetSocketAddress server) {
        return offer(policy, fingerprint, NativeTransports.nextStreamId(), server);
    }


    /**
     * The connection reset while the offer was being sent. A standard server answers with
     * ProtocolNack and closes at once, so the rest of the offer can meet a reset: its Nack is still
     * there to read. Without it the server went away (a JVM exiting, say): plain this once, not a
     * refusal to remember.
     */
    public static Outcome afterResetOnOffer(Socket socket, IOException reset) {
        try {
            socket.setSoTimeout(1000);
            if (socket.getInputStream().read() == Jrmp.PROTOCOL_NACK) {
                return new Outcome(null, NACK + ", the connection reset on the rest of the offer");
            }
        } catch (IOException e) {
            // nothing left to read: no Nack came
        }
        return new Outcome(null, RESET_ON_OFFER + ": " + reset.getMessage(), false);
    }

    /** Sends {@code offer} on {@code socket} and reads the answer; a standard server's refusal is plain, not an error. */
    public static Outcome exchange(Socket socket, Handshake.Offer offer) throws IOException {
        Handshake.writeOffer(socket.getOutputStream(), offer);
        InputStream in = socket.getInputStream();
        int first = in.read();
        if (first < 0) {
            // Stock RMI answers an offer with ProtocolNack; a close with no byte is a server going
            // away (its JVM exiting) or failing to answer. Remembered, it would keep the next
            // server on that port plain for plain-ttl: plain this once, as after a reset.
            return new Outcome(null, CLOSED, false);
        }
        if (first == Jrmp.PROTOCOL_NACK) {
            return new Outcome(null, NACK);
        }
        if (first != Jrmp.PROTOCOL_FASTRMI) {
            throw new HandshakeException("the server answered the FastRMI offer with byte 0x"
                    + Integer.toHexString(first) + ", neither FastRMI's 0x46 nor RMI's ProtocolNack 0x4f");
        }
        return new Outcome(Handshake.readAnswerBody(in), null);
    }
}
