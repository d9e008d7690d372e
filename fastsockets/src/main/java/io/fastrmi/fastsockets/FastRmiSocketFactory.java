package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.config.FastRmiConfig;
import io.fastrmi.fastsockets.config.HostPolicy;
import io.fastrmi.optrmi.JvmFingerprint;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.server.RMISocketFactory;

/**
 * RMI's default socket factory under FastRMI. A client socket to a host the config lets in carries
 * an upgrade offer before RMI's own opening; a standard server refuses it (ProtocolNack), and then
 * the endpoint is remembered as plain for the configured time and a plain connection is made, so
 * RMI never notices. Server sockets accept {@link FastSocket}s, which answer offers.
 */
final class FastRmiSocketFactory extends RMISocketFactory {

    private final FastRmiConfig config;
    private final JvmFingerprint fingerprint;
    private final PlainEndpoints plainEndpoints;

    FastRmiSocketFactory(FastRmiConfig config, JvmFingerprint fingerprint) {
        this.config = config;
        this.fingerprint = fingerprint;
        this.plainEndpoints = new PlainEndpoints(config.plainTtl(), System::nanoTime);
    }

    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
        return new FastServerSocket(port);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        // RMI mostly connects to the address a remote object advertises: a config that names hosts
        // needs the name behind it (a reverse lookup, as on the server side).
        String name = config.usesHostNames() && host.equals(address.getHostAddress()) ? address.getHostName() : host;
        HostPolicy policy = config.policyFor(name, address);
        if (!policy.optimize()) {
            return plain(host, address, port, "server host is outside per the client's config");
        }
        if (plainEndpoints.isPlain(host, port)) {
            return plain(host, address, port, "endpoint remembered as having no FastRMI agent");
        }
        HandshakeEvent event = new HandshakeEvent();
        event.begin();
        event.side = "client";
        event.peer = address.getHostAddress() + ":" + port;
        FastSocket socket = new FastSocket(false);
        try {
            socket.connect(new InetSocketAddress(address, port));
            socket.setSoTimeout(FastRmiSockets.HANDSHAKE_TIMEOUT_MILLIS);
            Handshake.writeOffer(socket.getOutputStream(), Negotiation.offer(policy, fingerprint));
            InputStream in = socket.getInputStream();
            int first = in.read();
            if (first == Jrmp.PROTOCOL_NACK || first < 0) {
                // A standard RMI server (or one that closes on what it does not know): plain from now on.
                FastRmiSockets.closeQuietly(socket);
                plainEndpoints.remember(host, port);
                event.result = "plain";
                event.reason = first < 0 ? "the server closed the connection on the FastRMI offer"
                        : "no FastRMI agent on the server (ProtocolNack)";
                event.transport = "tcp";
                event.commit();
                return new Socket(address, port);
            }
            if (first != Jrmp.PROTOCOL_FASTRMI) {
                throw new HandshakeException("the server answered the FastRMI offer with byte 0x"
                        + Integer.toHexString(first) + ", neither FastRMI's 0x46 nor RMI's ProtocolNack 0x4f");
            }
            Handshake.Answer answer = Handshake.readAnswerBody(in);
            socket.setSoTimeout(0);
            socket.negotiated(answer);
            FastRmiSockets.record(event, answer);
            return socket;
        } catch (IOException e) {
            FastRmiSockets.closeQuietly(socket);
            throw e;
        }
    }

    private static Socket plain(String host, InetAddress address, int port, String reason) throws IOException {
        HandshakeEvent event = new HandshakeEvent();
        if (event.isEnabled()) {
            event.begin();
            event.side = "client";
            event.peer = address.getHostAddress() + ":" + port;
            event.result = "plain";
            event.reason = reason;
            event.transport = "tcp";
            event.commit();
        }
        return new Socket(address, port);
    }
}
