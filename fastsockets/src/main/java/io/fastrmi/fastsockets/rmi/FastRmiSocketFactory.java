package io.fastrmi.fastsockets.rmi;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.RmiLimits;
import io.fastrmi.fastsockets.handshake.ClientHandshake;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.HandshakeException;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.fastsockets.handshake.Negotiator;
import io.fastrmi.fastsockets.handshake.UnopenedEndpointException;
import io.fastrmi.fastsockets.transport.FastRmiLog;
import io.fastrmi.fastsockets.transport.NativeTransports;
import io.fastrmi.optrmi.JvmFingerprint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.rmi.server.RMISocketFactory;

/**
 * RMI's default socket factory under FastRMI. A client socket to a host the config lets in carries
 * an upgrade offer before RMI's own opening; a standard server refuses it (ProtocolNack), and then
 * the endpoint is remembered as plain for the configured time and a plain connection is made, so
 * RMI never notices. Server sockets accept {@link FastSocket}s, which answer offers.
 */
public final class FastRmiSocketFactory extends RMISocketFactory {

    private static volatile FastRmiSocketFactory installed;

    private final FastRmiConfig config;
    private final JvmFingerprint fingerprint;
    private final PlainEndpoints plainEndpoints;

    FastRmiSocketFactory(FastRmiConfig config, JvmFingerprint fingerprint) {
        this.config = config;
        this.fingerprint = fingerprint;
        this.plainEndpoints = new PlainEndpoints(config.plainTtl());
    }

    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
        return FastServerSocket.create(port);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        ClientHandshake.Target target = ClientHandshake.target(config, host);
        if (!target.policy().optimize()) {
            return plain(target.address(), port, ClientHandshake.OUTSIDE);
        }
        if (DgcConnections.singleCall(host, port)) {
            return DgcConnections.singleCallSocket(target.address(), port);
        }
        return offering(host, port, target.address(), target.policy(), true);
    }

    /**
     * A connection that offers what {@code policy} lists; where the native stream the server answered
     * with cannot be opened here and {@code mayFallBack}, one more over tcp.
     */
    private Socket offering(String host, int port, InetAddress address, HostPolicy policy, boolean mayFallBack)
            throws IOException {
        if (plainEndpoints.isPlain(host, port)) {
            return plain(address, port, "endpoint remembered as having no FastRMI agent");
        }
        FastSocket socket = FastSocket.create(false);
        try {
            socket.connect(new InetSocketAddress(address, port));
        } catch (IOException e) {
            // Not reached: as RMI's own connection would fail, and no negotiation to record.
            Negotiator.closeQuietly(socket);
            throw e;
        }
        Negotiator negotiator = Negotiator.client(socket.negotiation(), Negotiator.Scope.RMI);
        long localId = NativeTransports.nextStreamId();
        Handshake.Offer offer = ClientHandshake.offer(policy, fingerprint, localId, new InetSocketAddress(address, port));
        ClientHandshake.Outcome outcome;
        int limit = RmiLimits.handshakeTimeoutMillis();
        try {
            socket.setSoTimeout(limit);
            outcome = ClientHandshake.exchange(socket, offer);
        } catch (HandshakeException e) {
            throw negotiator.failed(e);
        } catch (SocketTimeoutException e) {
            // A server that does not answer within RMI's limit fails the connection, as RMI's
            // own opening would: once, with no plain retry to wait again.
            throw negotiator.failed(negotiator.notAnswered(limit));
        } catch (IOException e) {
            outcome = ClientHandshake.afterResetOnOffer(socket, e);
        }
        if (outcome.answer() == null) {
            // A standard RMI server (its ProtocolNack): plain from now on. A server that closed or
            // reset on the offer (going away, say) is not remembered, and its plain connection
            // fails as RMI's own would (no failed negotiation then).
            Negotiator.closeQuietly(socket);
            if (outcome.refused()) {
                plainEndpoints.remember(host, port);
            }
            Socket plain = new Socket(address, port);
            negotiator.plain(outcome.plainReason());
            return plain;
        }
        try {
            socket.setSoTimeout(0);
            negotiator.attach(offer, outcome.answer(), localId);
            return socket;
        } catch (UnopenedEndpointException e) {
            if (!mayFallBack) {
                throw negotiator.failed(e);
            }
            negotiator.fellBackToTcp(e);
            return offering(host, port, address, policy.tcpOnly(), false);
        } catch (IOException e) {
            throw negotiator.failed(e);
        }
    }

    private static Socket plain(InetAddress address, int port, String reason) throws IOException {
        Negotiator.noNegotiation(Negotiator.Side.CLIENT, address.getHostAddress() + ":" + port, reason);
        return new Socket(address, port);
    }

    /** The factory of the installed config: made at RMI's first ask, again if the config was installed anew. */
    private static FastRmiSocketFactory forInstalledConfig() {
        FastRmiConfig config = Installation.config();
        FastRmiSocketFactory current = installed;
        if (current == null || current.config != config) {
            synchronized (FastRmiSocketFactory.class) {
                current = installed;
                if (current == null || current.config != config) {
                    current = new FastRmiSocketFactory(config, Installation.fingerprint());
                    installed = current;
                }
            }
        }
        return current;
    }

    /**
     * The factory RMI uses where the application chose none: {@code chosenByRmi} is what RMI's
     * {@code TCPEndpoint.chooseFactory} picked, the application's global factory if it set one (left
     * alone, and said once) or RMI's default (replaced by FastRMI's).
     */
    public static RMISocketFactory choose(RMISocketFactory chosenByRmi) {
        if (!Installation.installed()) {
            return chosenByRmi;
        }
        FastRmiSocketFactory ours = forInstalledConfig();
        Installation.warmUpTransports();
        RMISocketFactory global = RMISocketFactory.getSocketFactory();
        if (global != null) {
            FastRmiLog.once("global:" + global.getClass().getName(), "FastRMI: the application set a global RMISocketFactory ("
                    + global.getClass().getName() + "); FastRMI leaves it, and RMI through it stays plain");
            return chosenByRmi;
        }
        return ours;
    }

    /** RMI uses an application's own client or server socket factory for an endpoint: said once per class. */
    public static void customFactoryInUse(Object socketFactory) {
        if (socketFactory != null && Installation.installed()) {
            String name = socketFactory.getClass().getName();
            FastRmiLog.once("custom:" + name, "FastRMI: the application's socket factory " + name
                    + " is used for some remote objects; FastRMI leaves it, and RMI through it stays plain");
        }
    }
}
