package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeAddresses;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import io.fastrmi.fastsockets.transport.FastRmiLog;
import io.fastrmi.fastsockets.transport.NativeTransports;
import java.io.IOException;
import java.util.HexFormat;

/**
 * A server's decision made into the answer it sends: for a native transport, the answer carries this
 * end's address and a fresh stream id, and the client's end is read from its offer. A client address
 * that cannot be read falls back to tcp, said once.
 */
record ServerPairing(Handshake.Answer answer, NativeTransport context, byte[] peerAddress, long peerId, long localId) {

    /**
     * {@code checked}: the offered transport the decision found usable (the native one it chose),
     * with the client's address as {@link PeerEndpoints#checkedPeerAddress} gave it
     * ({@code checkedAddress}), or null when it found none.
     */
    static ServerPairing pair(Handshake.Answer decided, Handshake.Transport checked, byte[] checkedAddress,
            ControlConnection connection) {
        TransportName name = decided.transport().name();
        if (!name.isNative()) {
            return new ServerPairing(decided, null, null, 0, 0);
        }
        long localId = NativeTransports.nextStreamId();
        try {
            if (checked == null || !checked.name().equals(name)) {
                throw new HandshakeException("the decision chose " + name + " without checking the client's address");
            }
            PeerEndpoints.PeerEndpoint peer = PeerEndpoints.parseEndpoint(checked.address());
            // A context of the client's own where a dead peer could block a shared one.
            NativeTransport context = NativeTransports.forPeer(name, Client.of(checkedAddress));
            if (context == null || !NativeTransports.expect(context, connection.peer())) {
                throw new HandshakeException("the transport cannot let the client in");
            }
            return new ServerPairing(withTransport(decided, new Handshake.Transport(name,
                    PeerEndpoints.endpoint(context, localId))), context, checkedAddress, peer.streamId(), localId);
        } catch (HandshakeException e) {
            FastRmiLog.once("stream:" + name, "FastRMI: cannot pair a " + name + " stream, using tcp: " + e.getMessage());
            return new ServerPairing(withTransport(decided, Negotiation.TCP), null, null, 0, 0);
        }
    }

    /**
     * This end of the native stream the answer named, or null for tcp. Opened after the answer is
     * written, so that the client opens its end meanwhile: the first grant of credit needs both
     * ends' progress on some transports (rxm, UCX wire-up).
     */
    NativeStream open() throws HandshakeException {
        if (context == null) {
            return null;
        }
        try {
            return context.open(peerAddress, localId, peerId);
        } catch (IOException e) {
            throw new HandshakeException("cannot open the " + context.name() + " stream the answer named: " + e.getMessage(), e);
        }
    }

    /**
     * A client as the key of the server's context for it: its process where its address names one
     * (the pid, and when it started: a later process given the same pid is another client), else its
     * context's address. ({@code started} is -1 where the system does not say.) A class, not a
     * record: a record's generated hashCode costs its first use milliseconds of java.lang.invoke
     * (StartupIT).
     */
    private static final class Client {
        private final long pid;
        private final long started;
        private final String address;

        private Client(long pid, long started, String address) {
            this.pid = pid;
            this.started = started;
            this.address = address;
        }

        static Client of(byte[] checkedAddress) {
            long pid = NativeAddresses.namedProcess(checkedAddress);
            if (pid == 0) {
                return new Client(0, -1, HexFormat.of().formatHex(checkedAddress));
            }
            return new Client(pid, SocketOwners.startTicks(pid), "");
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Client client && pid == client.pid && started == client.started
                    && address.equals(client.address);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(pid) * 31 + Long.hashCode(started)) * 31 + address.hashCode();
        }

        @Override
        public String toString() {
            return pid != 0 ? "process " + pid : address;
        }
    }

    private static Handshake.Answer withTransport(Handshake.Answer answer, Handshake.Transport transport) {
        return new Handshake.Answer(answer.fast(), answer.reason(), answer.fingerprint(), answer.optimizations(), transport);
    }
}
