package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.config.FastRmiConfig;
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
final class FastRmiSocketFactory extends RMISocketFactory {

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
        InetAddress address = target.address();
        if (!target.policy().optimize()) {
            return plain(address, port, ClientHandshake.OUTSIDE);
        }
        if (plainEndpoints.isPlain(host, port)) {
            return plain(address, port, "endpoint remembered as having no FastRMI agent");
        }
        HandshakeEvent event = new HandshakeEvent();
        event.begin();
        event.side = "client";
        event.peer = address.getHostAddress() + ":" + port;
        FastSocket socket = FastSocket.create(false);
        try {
            socket.connect(new InetSocketAddress(address, port));
        } catch (IOException e) {
            // Not reached: as RMI's own connection would fail, and no negotiation to record.
            FastRmiSockets.closeQuietly(socket);
            throw e;
        }
        boolean negotiationOver = false;
        try {
            int limit = FastRmiSockets.handshakeTimeoutMillis();
            socket.setSoTimeout(limit);
            long localId = NativeTransports.nextStreamId();
            Handshake.Offer offer = ClientHandshake.offer(target.policy(), fingerprint, localId, address);
            ClientHandshake.Outcome outcome;
            try {
                outcome = ClientHandshake.exchange(socket, offer);
            } catch (HandshakeException e) {
                throw e;
            } catch (SocketTimeoutException e) {
                // A server that does not answer within RMI's limit fails the connection, as RMI's
                // own opening would: once, with no plain retry to wait again.
                throw new SocketTimeoutException("the FastRMI offer to " + event.peer + " was not answered within "
                        + limit + " ms (" + FastRmiSockets.HANDSHAKE_TIMEOUT_PROPERTY + ")");
            } catch (IOException e) {
                outcome = ClientHandshake.afterResetOnOffer(socket, e);
            }
            if (outcome.answer() == null) {
                // A standard RMI server (or one that closes on what it does not know): plain from
                // now on. A server that went away mid-offer is not remembered, and its plain
                // connection fails as RMI's own would.
                FastRmiSockets.closeQuietly(socket);
                if (outcome.refused()) {
                    plainEndpoints.remember(host, port);
                }
                negotiationOver = true; // a plain connection that cannot be made is no failed negotiation
                Socket plain = new Socket(address, port);
                event.result = "plain";
                event.reason = outcome.plainReason();
                event.transport = "tcp";
                event.commit();
                return plain;
            }
            socket.setSoTimeout(0);
            Handshake.Answer answer = outcome.answer();
            socket.negotiated(answer);
            io.fastrmi.fastsockets.nativelib.NativeStream stream = NativeTransports.openAnswered(offer, answer, localId,
                    ControlConnection.of(socket));
            if (stream != null) {
                socket.attach(stream, answer.transport().name().toString());
            }
            FastRmiSockets.record(event, answer);
            return socket;
        } catch (IOException e) {
            if (!negotiationOver) {
                FastRmiSockets.recordFailure(event, e);
            }
            FastRmiSockets.closeQuietly(socket);
            throw e;
        }
    }

    private static Socket plain(InetAddress address, int port, String reason) throws IOException {
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
