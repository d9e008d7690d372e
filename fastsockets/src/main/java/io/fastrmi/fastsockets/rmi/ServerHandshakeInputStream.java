package io.fastrmi.fastsockets.rmi;

import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.fastsockets.handshake.Jrmp;
import io.fastrmi.fastsockets.handshake.Negotiation;
import io.fastrmi.fastsockets.handshake.Negotiator;
import io.fastrmi.fastsockets.handshake.Privileged;
import io.fastrmi.fastsockets.transport.NativeConnection;
import io.fastrmi.fastsockets.transport.TcpWaits;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The server side's input stream: its first read looks at RMI's opening. An offer (magic, version,
 * our protocol byte) is answered here and never seen by RMI; anything else is handed to RMI byte for
 * byte, so a client without the agent (or not speaking RMI at all) meets stock RMI. It reads no more
 * than RMI itself would before deciding: the magic, then the version, then the protocol byte.
 */
final class ServerHandshakeInputStream extends FilterInputStream {

    private final FastSocket socket;
    private boolean detected;
    private byte[] replay = new byte[0];
    private int replayed;

    ServerHandshakeInputStream(FastSocket socket, InputStream in) {
        super(in);
        this.socket = socket;
    }

    @Override
    public int read() throws IOException {
        detect();
        if (replayed < replay.length) {
            return replay[replayed++] & 0xff;
        }
        NativeConnection connection = socket.nativeConnection();
        return connection != null ? connection.input().read() : in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        detect();
        NativeConnection connection = socket.nativeConnection();
        if (connection != null) {
            return connection.input().read(b, off, len);
        }
        if (replayed < replay.length) {
            int n = Math.min(len, replay.length - replayed);
            System.arraycopy(replay, replayed, b, off, n);
            replayed += n;
            return n;
        }
        return in.read(b, off, len);
    }

    @Override
    public int available() throws IOException {
        NativeConnection connection = socket.nativeConnection();
        return connection != null ? connection.input().available() : (replay.length - replayed) + in.available();
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private void detect() throws IOException {
        if (detected) {
            return;
        }
        detected = true;
        byte[] opening = new byte[Jrmp.OPENING_LENGTH];
        int have = fill(opening, 0, 4);
        if (have < 4 || readInt(opening) != Jrmp.MAGIC) {
            replay(opening, have);
            return;
        }
        have += fill(opening, 4, 2);
        if (have < 6 || (short) ((opening[4] & 0xff) << 8 | opening[5] & 0xff) != Jrmp.VERSION) {
            replay(opening, have);
            return;
        }
        have += fill(opening, 6, 1);
        if (have < 7 || (opening[6] & 0xff) != Jrmp.PROTOCOL_FASTRMI) {
            Negotiator.noNegotiation(Negotiator.Side.SERVER, Negotiator.peerOf(socket),
                    have == 7 && opening[6] == Jrmp.PROTOCOL_SINGLE_OP ? DgcConnections.SINGLE_CALL
                            : "the client made no FastRMI offer (no agent, or its host is outside for it)");
            replay(opening, have);
            return;
        }
        Privileged.run(offerAnswering); // RMI's connection threads have no permissions of their own
    }

    /** A class, not a method reference: each costs the JVM a class spun at its first use (StartupIT). */
    private final Privileged.Action offerAnswering = new Privileged.Action() {
        @Override
        public void run() throws IOException {
            answerOffer();
        }
    };

    /** The server's half of a negotiation: the offer after RMI's opening, decided and answered. */
    private void answerOffer() throws IOException {
        Negotiator negotiator = Negotiator.server(socket.negotiation(), Negotiator.Scope.RMI);
        try {
            Handshake.Offer offer = negotiator.readOffer(Handshake.OFFER_BODY);
            negotiator.answer(offer, Installation.policyFor(socket.getInetAddress()), Negotiation.FOR_RMI);
        } catch (IOException e) {
            throw negotiator.failed(e);
        }
        if (socket.negotiatedFast() && socket.nativeConnection() == null) {
            in = TcpWaits.input(in, socket.descriptor, socket.readTimeout); // a fast connection over TCP: its reads wait as the native streams'
        }
    }

    private void replay(byte[] bytes, int length) {
        replay = java.util.Arrays.copyOf(bytes, length);
    }

    /** Reads up to {@code length} bytes, fewer only at end of stream. */
    private int fill(byte[] buffer, int offset, int length) throws IOException {
        int total = 0;
        while (total < length) {
            int n = in.read(buffer, offset + total, length - total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    private static int readInt(byte[] b) {
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | b[3] & 0xff;
    }
}
