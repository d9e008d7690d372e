package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.TransportName;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.optrmi.Optimization;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The FastRMI handshake records and their encoding. All integers are big-endian; {@code utf} is a
 * u16 length and modified UTF-8, as {@link DataOutputStream#writeUTF}.
 *
 * <pre>
 * offer  (client to server, in place of RMI's opening):
 *   "JRMI" u16 2  u8 0x46  u16 length  body[length]
 *   body: u8 recordVersion (1)
 *         utf java.specification.version  utf java.vm.name  utf java.vm.version  u8 byteOrder (0 big, 1 little)
 *         u32 optimizations (bit set, {@link Optimization#bit}; bit 31: {@link Offer#acknowledgesSocketAnswer})
 *         u8 transportCount, then per transport: utf name ("tcp", "ofi:shm", ...)  utf address
 * answer (server to client):
 *   u8 0x46  u16 length  body[length]
 *   body: u8 recordVersion (1)  u8 result (0 plain, 1 fast)  utf reason
 *         utf specVersion  utf vmName  utf vmVersion  u8 byteOrder   (the server's fingerprint)
 *         u32 optimizations accepted (bit 31: {@link Answer#awaitsAcknowledgement})  utf transport chosen  utf its address
 * </pre>
 *
 * Under scope = jvm a client negotiates at its socket's first use, so it may close unused before it
 * has read the answer: it then sends {@code NativeConnection.UNUSED}. An answer that keeps the bytes
 * on the socket and awaits an acknowledgement is followed, before the client's first byte of data,
 * by {@link #SOCKET_ANSWER_READ}, which tells the two apart (an old peer sets no bit 31 and sends no
 * acknowledgement). A standard RMI server answers the offer with 0x4f (ProtocolNack) and closes. After a FastRMI answer
 * RMI's own protocol (opening, calls) runs on the chosen transport. A body is at most
 * {@value #MAX_RECORD_LENGTH} bytes; anything else malformed is a {@link HandshakeException}.
 */
public final class Handshake {

    public static final int RECORD_VERSION = 1;
    public static final int MAX_RECORD_LENGTH = 4096;
    static final int MAX_TRANSPORTS = 16;
    /** The client's acknowledgement of an answer that {@link Answer#awaitsAcknowledgement}: it read it, data follows. */
    public static final int SOCKET_ANSWER_READ = 0x06;
    /** Bit 31 of the optimization set, which {@link Optimization} never takes: the acknowledgement offered, or awaited. */
    static final int ACKNOWLEDGEMENT_BIT = 1 << 31;

    private Handshake() {
    }

    /** A transport on offer or chosen, and the address where the peer reaches it ("" for the TCP socket itself). */
    public record Transport(TransportName name, String address) {
    }

    /**
     * {@code acknowledgesSocketAnswer}: the client will acknowledge an answer that keeps the bytes on
     * the socket, if the answer awaits it (scope = jvm's clients, which may close before reading it).
     */
    public record Offer(JvmFingerprint fingerprint, Set<Optimization> optimizations, List<Transport> transports,
            boolean acknowledgesSocketAnswer) {
        public Offer {
            optimizations = Set.copyOf(optimizations);
            transports = List.copyOf(transports);
        }

        public Offer(JvmFingerprint fingerprint, Set<Optimization> optimizations, List<Transport> transports) {
            this(fingerprint, optimizations, transports, false);
        }

        /** This offer, with the acknowledgement of a socket answer offered. */
        public Offer acknowledgingSocketAnswer() {
            return new Offer(fingerprint, optimizations, transports, true);
        }
    }

    /**
     * {@code awaitsAcknowledgement}: the server reads {@link #SOCKET_ANSWER_READ} (or the client's
     * unused signal, or the end) before the client's first byte of data.
     */
    public record Answer(boolean fast, String reason, JvmFingerprint fingerprint, Set<Optimization> optimizations,
            Transport transport, boolean awaitsAcknowledgement) {
        public Answer {
            optimizations = Set.copyOf(optimizations);
        }

        public Answer(boolean fast, String reason, JvmFingerprint fingerprint, Set<Optimization> optimizations,
                Transport transport) {
            this(fast, reason, fingerprint, optimizations, transport, false);
        }

        /**
         * This answer as sent to {@code offer}: awaiting the acknowledgement where the client offered
         * it and the bytes stay on the socket (a native stream's end is signalled on its control connection).
         */
        public Answer acknowledgedAsOffered(Offer offer) {
            boolean awaits = offer.acknowledgesSocketAnswer() && !transport.name().isNative();
            return new Answer(fast, reason, fingerprint, optimizations, transport, awaits);
        }
    }

    public static void writeOffer(OutputStream out, Offer offer) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        DataOutputStream b = new DataOutputStream(body);
        b.writeByte(RECORD_VERSION);
        writeFingerprint(b, offer.fingerprint());
        b.writeInt(Optimization.bits(offer.optimizations()) | (offer.acknowledgesSocketAnswer() ? ACKNOWLEDGEMENT_BIT : 0));
        if (offer.transports().size() > MAX_TRANSPORTS) {
            throw new IllegalArgumentException("at most " + MAX_TRANSPORTS + " transports");
        }
        b.writeByte(offer.transports().size());
        for (Transport t : offer.transports()) {
            b.writeUTF(t.name().toString());
            b.writeUTF(t.address());
        }
        ByteArrayOutputStream record = new ByteArrayOutputStream(body.size() + 9);
        DataOutputStream o = new DataOutputStream(record);
        o.writeInt(Jrmp.MAGIC);
        o.writeShort(Jrmp.VERSION);
        o.writeByte(Jrmp.PROTOCOL_FASTRMI);
        writeRecord(out, record, body);
    }

    /**
     * Reads a whole offer, opening included, from a client known to send one (scope = jvm): any
     * other opening is a {@link HandshakeException} that names the bytes.
     */
    public static Offer readOffer(InputStream in) throws IOException {
        DataInputStream o = new DataInputStream(in);
        int magic;
        int version;
        int protocol;
        try {
            magic = o.readInt();
            version = o.readShort();
            protocol = o.readUnsignedByte();
        } catch (EOFException e) {
            throw new HandshakeException("the connection ended before the FastRMI offer's opening", e);
        }
        if (magic != Jrmp.MAGIC || version != Jrmp.VERSION || protocol != Jrmp.PROTOCOL_FASTRMI) {
            throw new HandshakeException(String.format("expected a FastRMI offer, got the opening %08x %04x %02x",
                    magic, version & 0xffff, protocol));
        }
        return readOfferBody(in);
    }

    // Classes, not method references: each costs the JVM a class spun at its first use (StartupIT).
    /** {@link #readOfferBody}, for {@link Negotiator#readOffer}. */
    public static final Negotiator.Read<Offer> OFFER_BODY = new Negotiator.Read<>() {
        @Override
        public Offer read(InputStream in) throws IOException {
            return readOfferBody(in);
        }
    };
    /** {@link #readAnswerBody}, for {@link Negotiator#readAnswerBody()}. */
    static final Negotiator.Read<Answer> ANSWER_BODY = new Negotiator.Read<>() {
        @Override
        public Answer read(InputStream in) throws IOException {
            return readAnswerBody(in);
        }
    };

    /** Reads an offer's length and body; the caller has read the 7-byte opening. */
    public static Offer readOfferBody(InputStream in) throws IOException {
        DataInputStream b = body(in, "offer");
        try {
            checkVersion(b.readUnsignedByte(), "offer");
            JvmFingerprint fingerprint = readFingerprint(b);
            int bits = b.readInt();
            Set<Optimization> optimizations = Optimization.fromBits(bits);
            int count = b.readUnsignedByte();
            if (count > MAX_TRANSPORTS) {
                throw new HandshakeException("handshake offer lists " + count + " transports; at most " + MAX_TRANSPORTS);
            }
            List<Transport> transports = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String name = b.readUTF();
                String address = b.readUTF();
                // A name this version cannot parse (a newer peer's transport) cannot be chosen: left out.
                Optional<TransportName> parsed = TransportName.tryParse(name);
                if (parsed.isPresent()) {
                    transports.add(new Transport(parsed.get(), address));
                }
            }
            expectEnd(b, "offer");
            return new Offer(fingerprint, optimizations, transports, (bits & ACKNOWLEDGEMENT_BIT) != 0);
        } catch (EOFException | UTFDataFormatException e) {
            throw malformed("offer", e);
        }
    }

    public static void writeAnswer(OutputStream out, Answer answer) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        DataOutputStream b = new DataOutputStream(body);
        b.writeByte(RECORD_VERSION);
        b.writeByte(answer.fast() ? 1 : 0);
        b.writeUTF(answer.reason());
        writeFingerprint(b, answer.fingerprint());
        b.writeInt(Optimization.bits(answer.optimizations()) | (answer.awaitsAcknowledgement() ? ACKNOWLEDGEMENT_BIT : 0));
        b.writeUTF(answer.transport().name().toString());
        b.writeUTF(answer.transport().address());
        ByteArrayOutputStream record = new ByteArrayOutputStream(body.size() + 3);
        record.write(Jrmp.PROTOCOL_FASTRMI);
        writeRecord(out, record, body);
    }

    /** Reads an answer's length and body; the caller has read its first byte (0x46). */
    public static Answer readAnswerBody(InputStream in) throws IOException {
        DataInputStream b = body(in, "answer");
        try {
            checkVersion(b.readUnsignedByte(), "answer");
            int result = b.readUnsignedByte();
            if (result > 1) {
                throw new HandshakeException("handshake answer has result " + result + "; expected 0 (plain) or 1 (fast)");
            }
            String reason = b.readUTF();
            JvmFingerprint fingerprint = readFingerprint(b);
            int bits = b.readInt();
            Set<Optimization> optimizations = Optimization.fromBits(bits);
            String name = b.readUTF();
            Optional<TransportName> chosen = TransportName.tryParse(name);
            if (chosen.isEmpty()) {
                throw new HandshakeException("handshake answer chose transport '" + name + "', which is none (expected "
                        + TransportName.GRAMMAR + ")");
            }
            Transport transport = new Transport(chosen.get(), b.readUTF());
            expectEnd(b, "answer");
            return new Answer(result == 1, reason, fingerprint, optimizations, transport, (bits & ACKNOWLEDGEMENT_BIT) != 0);
        } catch (EOFException | UTFDataFormatException e) {
            throw malformed("answer", e);
        }
    }

    /** What was wrong with a record's body: it ended before its last field, or held a bad string. */
    private static HandshakeException malformed(String record, IOException e) {
        String what = e instanceof EOFException
                ? "is truncated: its body ends before its last field"
                : "holds a malformed string (" + e.getMessage() + ")";
        return new HandshakeException("handshake " + record + " record " + what, e);
    }

    /**
     * The opening in {@code record}, then the body's length and the body, written to {@code out} in
     * one write: one TCP segment, never a small one left waiting behind Nagle's algorithm.
     */
    private static void writeRecord(OutputStream out, ByteArrayOutputStream record, ByteArrayOutputStream body)
            throws IOException {
        if (body.size() > MAX_RECORD_LENGTH) {
            throw new IllegalArgumentException("handshake record of " + body.size() + " bytes exceeds " + MAX_RECORD_LENGTH);
        }
        new DataOutputStream(record).writeShort(body.size());
        body.writeTo(record);
        record.writeTo(out);
        out.flush();
    }

    /** The record body, read whole so that a field can never run past it. */
    private static DataInputStream body(InputStream in, String what) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length;
        byte[] body;
        try {
            length = data.readUnsignedShort();
            if (length > MAX_RECORD_LENGTH) {
                throw new HandshakeException("handshake " + what + " record length " + length + " exceeds the limit of "
                        + MAX_RECORD_LENGTH + " bytes");
            }
            body = new byte[length];
            data.readFully(body);
        } catch (EOFException e) {
            throw new HandshakeException("handshake " + what + " is truncated: the connection ended inside the record", e);
        }
        return new DataInputStream(new ByteArrayInputStream(body));
    }

    private static void checkVersion(int version, String what) throws HandshakeException {
        if (version != RECORD_VERSION) {
            throw new HandshakeException("handshake " + what + " record version " + version + " is not supported (this is "
                    + RECORD_VERSION + ")");
        }
    }

    private static void expectEnd(DataInputStream b, String what) throws IOException {
        int left = b.available();
        if (left != 0) {
            throw new HandshakeException("handshake " + what + " record has " + left + " unexpected trailing bytes");
        }
    }

    private static void writeFingerprint(DataOutputStream b, JvmFingerprint f) throws IOException {
        b.writeUTF(f.specificationVersion());
        b.writeUTF(f.vmName());
        b.writeUTF(f.vmVersion());
        b.writeByte(f.byteOrder() == ByteOrder.BIG_ENDIAN ? 0 : 1);
    }

    private static JvmFingerprint readFingerprint(DataInputStream b) throws IOException {
        String spec = b.readUTF();
        String vmName = b.readUTF();
        String vmVersion = b.readUTF();
        int order = b.readUnsignedByte();
        if (order > 1) {
            throw new HandshakeException("handshake record has byte order " + order + "; expected 0 (big) or 1 (little)");
        }
        return new JvmFingerprint(spec, vmName, vmVersion, order == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    }
}
