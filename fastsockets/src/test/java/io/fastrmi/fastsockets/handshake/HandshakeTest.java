package io.fastrmi.fastsockets.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.config.TransportName;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.optrmi.Optimization;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HandshakeTest {

    static final JvmFingerprint JDK17 = new JvmFingerprint("17", "OpenJDK 64-Bit Server VM", "17.0.15+6", ByteOrder.LITTLE_ENDIAN);
    static final Handshake.Offer OFFER = new Handshake.Offer(JDK17, Set.of(Optimization.CLASS_TABLE, Optimization.BULK_ARRAYS),
            List.of(new Handshake.Transport(TransportName.parse("ofi:shm"), "fi_addr:0a0b"), new Handshake.Transport(TransportName.TCP, "")));

    @Test
    void anOfferRoundTripsAfterRmisOwnOpening() throws IOException {
        byte[] bytes = offerBytes(OFFER);
        assertEquals(List.of(0x4a, 0x52, 0x4d, 0x49, 0x00, 0x02, 0x46), toList(Arrays.copyOf(bytes, 7)));
        assertEquals(OFFER, Handshake.readOfferBody(new ByteArrayInputStream(bytes, 7, bytes.length - 7)));
    }

    @Test
    void anAnswerRoundTrips() throws IOException {
        Handshake.Answer answer = new Handshake.Answer(false, "JVM fingerprint mismatch", JDK17, Set.of(),
                new Handshake.Transport(TransportName.TCP, ""));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Handshake.writeAnswer(out, answer);
        byte[] bytes = out.toByteArray();
        assertEquals(0x46, bytes[0]);
        assertEquals(answer, Handshake.readAnswerBody(new ByteArrayInputStream(bytes, 1, bytes.length - 1)));
    }

    @Test
    void aTruncatedRecordIsNamed() throws IOException {
        byte[] bytes = offerBytes(OFFER);
        byte[] cut = Arrays.copyOfRange(bytes, 7, bytes.length - 5);
        assertEquals("handshake offer is truncated: the connection ended inside the record",
                assertThrows(HandshakeException.class, () -> Handshake.readOfferBody(new ByteArrayInputStream(cut)))
                        .getMessage());
    }

    @Test
    void aHugeLengthIsRefusedBeforeReading() {
        byte[] huge = {(byte) 0xff, (byte) 0xff, 1, 2, 3};
        assertEquals("handshake offer record length 65535 exceeds the limit of 4096 bytes",
                assertThrows(HandshakeException.class, () -> Handshake.readOfferBody(new ByteArrayInputStream(huge)))
                        .getMessage());
    }

    @Test
    void anUnknownRecordVersionIsRefused() throws IOException {
        byte[] body = body(b -> b.writeByte(9));
        assertEquals("handshake offer record version 9 is not supported (this is 1)",
                assertThrows(HandshakeException.class, () -> Handshake.readOfferBody(new ByteArrayInputStream(body)))
                        .getMessage());
    }

    @Test
    void fieldsThatRunPastTheRecordAreMalformed() throws IOException {
        byte[] body = body(b -> {
            b.writeByte(1);
            b.writeShort(200); // a string said to be 200 bytes long, in a record much shorter
            b.writeBytes("17");
        });
        assertTrue(assertThrows(HandshakeException.class, () -> Handshake.readOfferBody(new ByteArrayInputStream(body)))
                .getMessage().equals("handshake offer record is truncated: its body ends before its last field"));
    }

    @Test
    void trailingBytesAreUnexpected() throws IOException {
        byte[] bytes = offerBytes(OFFER);
        byte[] record = Arrays.copyOfRange(bytes, 7, bytes.length + 3);
        int length = (record[0] & 0xff) << 8 | record[1] & 0xff;
        record[0] = (byte) ((length + 3) >> 8);
        record[1] = (byte) (length + 3);
        assertEquals("handshake offer record has 3 unexpected trailing bytes",
                assertThrows(HandshakeException.class, () -> Handshake.readOfferBody(new ByteArrayInputStream(record)))
                        .getMessage());
    }

    @Test
    void aBadResultOrByteOrderIsRefused() throws IOException {
        byte[] result = body(b -> {
            b.writeByte(1);
            b.writeByte(7);
        });
        assertEquals("handshake answer has result 7; expected 0 (plain) or 1 (fast)",
                assertThrows(HandshakeException.class, () -> Handshake.readAnswerBody(new ByteArrayInputStream(result)))
                        .getMessage());
        byte[] order = body(b -> {
            b.writeByte(1);
            b.writeUTF("17");
            b.writeUTF("vm");
            b.writeUTF("1");
            b.writeByte(5);
        });
        assertEquals("handshake record has byte order 5; expected 0 (big) or 1 (little)",
                assertThrows(HandshakeException.class, () -> Handshake.readOfferBody(new ByteArrayInputStream(order)))
                        .getMessage());
    }

    @Test
    void optimizationBitsOfANewerPeerAreLeftOut() throws IOException {
        byte[] body = body(b -> {
            b.writeByte(1);
            b.writeUTF("17");
            b.writeUTF("vm");
            b.writeUTF("1");
            b.writeByte(1);
            b.writeInt(0x1 | 0x100); // class-table, and a bit this version does not know
            b.writeByte(0);
        });
        assertEquals(Set.of(Optimization.CLASS_TABLE), Handshake.readOfferBody(new ByteArrayInputStream(body)).optimizations());
    }

    /**
     * Bit 31 of the optimization word carries the acknowledgement of a socket answer, in both
     * records, and is no optimization; a peer of an older version sets it in neither.
     */
    @Test
    void theAcknowledgementTravelsInBit31() throws IOException {
        Handshake.Offer acknowledging = OFFER.acknowledgingSocketAnswer();
        byte[] bytes = offerBytes(acknowledging);
        Handshake.Offer read = Handshake.readOfferBody(new ByteArrayInputStream(bytes, 7, bytes.length - 7));
        assertEquals(acknowledging, read);
        assertTrue(read.acknowledgesSocketAnswer());
        assertEquals(OFFER.optimizations(), read.optimizations());
        byte[] old = offerBytes(OFFER);
        assertFalse(Handshake.readOfferBody(new ByteArrayInputStream(old, 7, old.length - 7)).acknowledgesSocketAnswer());

        Handshake.Answer answer = new Handshake.Answer(true, "", JDK17, Set.of(Optimization.CLASS_TABLE),
                new Handshake.Transport(TransportName.TCP, "")).acknowledgedAsOffered(acknowledging);
        assertTrue(answer.awaitsAcknowledgement());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Handshake.writeAnswer(out, answer);
        byte[] answerBytes = out.toByteArray();
        assertEquals(answer, Handshake.readAnswerBody(new ByteArrayInputStream(answerBytes, 1, answerBytes.length - 1)));
    }

    /** Only an answer that keeps the bytes on the socket, to a client that offered it, awaits the acknowledgement. */
    @Test
    void onlyASocketAnswerToAnAcknowledgingClientAwaitsIt() {
        Handshake.Answer socket = new Handshake.Answer(false, "outside", JDK17, Set.of(), new Handshake.Transport(TransportName.TCP, ""));
        Handshake.Answer shm = new Handshake.Answer(true, "", JDK17, Set.of(),
                new Handshake.Transport(TransportName.parse("ofi:shm"), "fi_addr:0a0b"));
        assertTrue(socket.acknowledgedAsOffered(OFFER.acknowledgingSocketAnswer()).awaitsAcknowledgement());
        assertFalse(socket.acknowledgedAsOffered(OFFER).awaitsAcknowledgement());
        assertFalse(shm.acknowledgedAsOffered(OFFER.acknowledgingSocketAnswer()).awaitsAcknowledgement());
    }

    static byte[] offerBytes(Handshake.Offer offer) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Handshake.writeOffer(out, offer);
        return out.toByteArray();
    }

    @Test
    void transportNamesOfANewerPeerAreLeftOutOfAnOffer() throws IOException {
        byte[] body = body(b -> {
            b.writeByte(1);
            b.writeUTF("25");
            b.writeUTF("vm");
            b.writeUTF("1");
            b.writeByte(1);
            b.writeInt(0);
            b.writeByte(4);
            for (String name : new String[] {"ofi:shm", "rdma:x", "ucx:../etc", "tcp"}) {
                b.writeUTF(name);
                b.writeUTF("");
            }
        });
        assertEquals(List.of(new Handshake.Transport(TransportName.parse("ofi:shm"), ""), new Handshake.Transport(TransportName.TCP, "")),
                Handshake.readOfferBody(new ByteArrayInputStream(body)).transports());
    }

    @Test
    void anAnswerNamingNoTransportIsAHandshakeException() throws IOException {
        byte[] body = body(b -> {
            b.writeByte(1);
            b.writeByte(1);
            b.writeUTF("");
            b.writeUTF("25");
            b.writeUTF("vm");
            b.writeUTF("1");
            b.writeByte(1);
            b.writeInt(0);
            b.writeUTF("ofi:shm;x;y");
            b.writeUTF("");
        });
        HandshakeException e = assertThrows(HandshakeException.class,
                () -> Handshake.readAnswerBody(new ByteArrayInputStream(body)));
        assertTrue(e.getMessage().contains("transport 'ofi:shm;x;y', which is none"), e.getMessage());
    }

    interface BodyWriter {
        void write(DataOutputStream out) throws IOException;
    }

    /** A length-prefixed record body written by {@code writer}. */
    static byte[] body(BodyWriter writer) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writer.write(new DataOutputStream(body));
        ByteArrayOutputStream framed = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(framed);
        out.writeShort(body.size());
        body.writeTo(out);
        return framed.toByteArray();
    }

    private static List<Integer> toList(byte[] bytes) {
        Integer[] values = new Integer[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            values[i] = bytes[i] & 0xff;
        }
        return List.of(values);
    }
}
