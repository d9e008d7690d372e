package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeAddresses;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import io.fastrmi.fastsockets.transport.FastRmiLog;
import io.fastrmi.fastsockets.transport.NativeTransports;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;

/**
 * The native end of a stream as a handshake carries it ("HOST/ADDRESS/STREAM"), and what a peer's
 * end must pass before the library sees it. The transports hand out address bytes; the endpoint
 * text, and the trust in it, are the handshake's.
 */
final class PeerEndpoints {

    private PeerEndpoints() {
    }

    /**
     * The address a handshake carries: this host's {@link HostIdentity}, "/", the context's address
     * in hex, "/", the stream id.
     */
    static String endpoint(NativeTransport transport, long streamId) {
        return HostIdentity.current() + "/" + HexFormat.of().formatHex(transport.address()) + "/" + streamId;
    }

    /** A peer's end of a stream as a handshake carries it: its host, its context's address and its stream id. */
    record PeerEndpoint(String host, byte[] address, long streamId) {
        /** Whether a stream of {@code transport} can reach this peer from here. */
        boolean reachableOver(TransportName transport) {
            return !transport.isSameHostOnly() || host.equals(HostIdentity.current());
        }
    }

    /** Reads an endpoint written by {@link #endpoint}; a malformed one is a {@link HandshakeException}. */
    static PeerEndpoint parseEndpoint(String peerEndpoint) throws HandshakeException {
        String[] parts = peerEndpoint.split("/", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty()) {
            throw new HandshakeException("transport address '" + peerEndpoint + "' is not HOST/ADDRESS/STREAM");
        }
        try {
            return new PeerEndpoint(parts[0], HexFormat.of().parseHex(parts[1]), Long.parseLong(parts[2]));
        } catch (IllegalArgumentException e) {
            throw new HandshakeException("transport address '" + peerEndpoint + "' is malformed: " + e.getMessage());
        }
    }

    /**
     * The offering peer's address for the library when this JVM can open a stream of the offered
     * transport to it (the transport opens here, and the address passes {@link #checkedPeerAddress});
     * null when it cannot (said once).
     */
    static byte[] checkedIfUsable(Handshake.Transport offered, ControlConnection connection) {
        if (!NativeTransports.available(offered.name())) {
            return null;
        }
        try {
            return checkedPeerAddress(offered.name(), parseEndpoint(offered.address()), connection);
        } catch (HandshakeException e) {
            FastRmiLog.once("endpoint:" + offered.name() + ":" + e.getMessage(), "FastRMI: " + offered.name()
                    + " is not used with " + connection.peer().getHostAddress() + ": " + e.getMessage());
            return null;
        }
    }

    /**
     * The peer's native address for the library, checked: of the kind the transport uses, well
     * formed ({@link NativeAddresses#checked}), a socket address only of a host inside per the config,
     * and for shared memory only of a process of this user on this host, as the kernel says of the
     * peer's end of {@code connection}: never on the peer's word.
     */
    static byte[] checkedPeerAddress(TransportName transport, PeerEndpoint peer, ControlConnection connection)
            throws HandshakeException {
        byte[] address = peer.address();
        char expected = transport.backend() == TransportName.Backend.OFI ? 'O' : transport.isSameHostOnly() ? 'U' : 'S';
        if (address.length == 0 || address[0] != expected) {
            throw new HandshakeException("the peer's " + transport + " address is not of the kind " + transport + " uses");
        }
        byte[] checked;
        try {
            checked = NativeAddresses.checked(address, connection.peer());
        } catch (NativeAddresses.InvalidAddressException e) {
            throw new HandshakeException("the peer sent " + e.getMessage() + " for " + transport);
        }
        if (transport.isSameHostOnly()) {
            if (!peer.reachableOver(transport)) {
                throw new HandshakeException("the peer is not on this host (or not in its network namespace)");
            }
            NativeLibrary.PeerSocket peerSocket = sameUserPeer(connection);
            checkNamesItself(transport, NativeAddresses.namedProcess(checked), peerSocket);
        }
        InetSocketAddress fabric = expected == 'O' ? NativeAddresses.ofiSocketAddress(checked) : null;
        if (fabric != null && !Installation.config().policyFor(null, fabric.getAddress()).optimize()) {
            throw new HandshakeException("the peer's " + transport + " address " + fabric.getAddress().getHostAddress()
                    + " is outside per the config");
        }
        return checked;
    }

    /** The peer's end of the connection, a socket of a process of this user on this host, as the kernel says. */
    private static NativeLibrary.PeerSocket sameUserPeer(ControlConnection connection) throws HandshakeException {
        try {
            NativeLibrary library = NativeTransports.library();
            NativeLibrary.PeerSocket peer = library.tcpPeer(connection.remote(), connection.local());
            if (peer == null) {
                throw new HandshakeException("the peer's end of the connection is not on this host");
            }
            int own = library.processUid();
            if (peer.uid() != Integer.toUnsignedLong(own)) {
                throw new HandshakeException("the peer is a process of uid " + peer.uid() + ", not of this user (uid "
                        + Integer.toUnsignedLong(own) + "): no shared memory with it");
            }
            return peer;
        } catch (HandshakeException e) {
            throw e;
        } catch (IOException e) {
            throw new HandshakeException("cannot learn who the peer is: " + e.getMessage(), e);
        }
    }

    /**
     * The process a shared-memory address names (its doorbell, regions, worker file) holds the peer's
     * end of the connection, as the kernel says: a peer offers only its own shared memory, never
     * another process's of this user.
     */
    private static void checkNamesItself(TransportName transport, long pid, NativeLibrary.PeerSocket peerSocket)
            throws HandshakeException {
        boolean holds;
        try {
            holds = NativeTransports.library().processHoldsSocket(pid, peerSocket.inode());
        } catch (IOException e) {
            throw new HandshakeException("cannot learn whether process " + pid + " holds the peer's end of the connection: "
                    + e.getMessage(), e);
        }
        if (!holds) {
            throw new HandshakeException("the peer's " + transport + " address names process " + pid
                    + ", which does not hold the peer's end of the connection");
        }
    }

    /**
     * The endpoint an offer carries for transport {@code name} to the server at {@code server}: of
     * the context this JVM's connections to that server get, for stream {@code localStreamId}; null
     * when the transport cannot be offered.
     */
    static String offeredEndpoint(TransportName name, long localStreamId, InetSocketAddress server) {
        NativeTransport context = NativeTransports.forPeer(name, new ServerEndpoint(server));
        return context != null && NativeTransports.expect(context, server.getAddress()) ? endpoint(context, localStreamId) : null;
    }

    /**
     * A server's endpoint, as the key of the client's context for it. A class, not a record: a
     * record's generated hashCode costs its first use milliseconds of java.lang.invoke (StartupIT).
     */
    private static final class ServerEndpoint {
        private final InetSocketAddress address;

        ServerEndpoint(InetSocketAddress address) {
            this.address = address;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof ServerEndpoint endpoint && address.equals(endpoint.address);
        }

        @Override
        public int hashCode() {
            return address.hashCode();
        }

        @Override
        public String toString() {
            return address.toString();
        }
    }

    /**
     * The client's end of the native stream a server's answer named (for stream {@code localId} of
     * the offer), or null when the answer chose tcp. An endpoint that is malformed or that cannot be
     * opened is an {@link UnopenedEndpointException}.
     */
    static NativeStream openAnswered(Handshake.Offer offer, Handshake.Answer answer, long localId,
            ControlConnection connection) throws IOException {
        TransportName name = answer.transport().name();
        if (!name.isNative()) {
            return null;
        }
        NativeTransport context = offeredContext(offer, name);
        try {
            PeerEndpoint peer = parseEndpoint(answer.transport().address());
            return context.open(checkedPeerAddress(name, peer, connection), localId, peer.streamId());
        } catch (IOException e) {
            throw new UnopenedEndpointException("cannot open the server's " + name + " endpoint: " + e.getMessage(), e);
        }
    }

    /** The context of ours that {@code offer} named for transport {@code name}. */
    private static NativeTransport offeredContext(Handshake.Offer offer, TransportName name) throws HandshakeException {
        for (Handshake.Transport offered : offer.transports()) {
            if (offered.name().equals(name) && offered.address() != null) {
                NativeTransport context = NativeTransports.contextWithAddress(name, parseEndpoint(offered.address()).address());
                if (context == null) {
                    throw new HandshakeException("the " + name + " context this JVM offered is closed");
                }
                return context;
            }
        }
        throw new HandshakeException("the server chose " + name + ", which this JVM did not offer");
    }
}
