package io.fastrmi.fastsockets.rmi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.HandshakeException;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.fastsockets.handshake.Negotiation;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The server side's detection on real loopback sockets: offers answered, everything else handed on as it came. */
class ServerHandshakeTest {

    private FastServerSocket server;

    @BeforeEach
    void listen() throws IOException {
        Installation.install(FastRmiConfig.builtIn());
        server = FastServerSocket.create(0);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    /** RMI's stream protocol (0x4b) and its single-operation one (0x4c, DGC's calls from an agent). */
    @ParameterizedTest
    @ValueSource(bytes = {0x4b, 0x4c})
    void rmisOwnOpeningReachesRmiByteForByte(byte protocol) throws IOException {
        byte[] opening = {0x4a, 0x52, 0x4d, 0x49, 0x00, 0x02, protocol, 1, 2, 3};
        try (Socket client = connect(); FastSocket accepted = (FastSocket) server.accept()) {
            client.getOutputStream().write(opening);
            byte[] seen = new DataInputStream(accepted.getInputStream()).readNBytes(opening.length);
            assertArrayEquals(opening, seen);
            assertNull(accepted.answer());
        }
    }

    @Test
    void bytesThatAreNotRmiReachRmiToo() throws IOException {
        byte[] garbage = "GET / HTTP/1.0\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (Socket client = connect(); FastSocket accepted = (FastSocket) server.accept()) {
            client.getOutputStream().write(garbage);
            client.shutdownOutput();
            assertArrayEquals(garbage, accepted.getInputStream().readAllBytes());
        }
    }

    @Test
    void anOfferIsAnsweredAndNeverSeenByRmi() throws IOException {
        try (Socket client = connect(); FastSocket accepted = (FastSocket) server.accept()) {
            Handshake.writeOffer(client.getOutputStream(), Negotiation.offer(
                    io.fastrmi.config.HostPolicy.INSIDE_LOCAL, Installation.fingerprint()));
            client.getOutputStream().write(new byte[] {0x4a, 0x52, 0x4d, 0x49});
            byte[] afterOffer = new DataInputStream(accepted.getInputStream()).readNBytes(4);
            assertArrayEquals(new byte[] {0x4a, 0x52, 0x4d, 0x49}, afterOffer, "RMI sees its own opening next");
            assertTrue(accepted.negotiatedFast());
            InputStream answer = client.getInputStream();
            assertEquals(0x46, answer.read());
            assertTrue(Handshake.readAnswerBody(answer).fast());
        }
    }

    @Test
    void aMalformedOfferClosesThatConnectionWithAClearError() throws IOException {
        // A 4-byte record: version 1, then a string said to be 2 bytes long with 1 byte left.
        byte[] offer = {0x4a, 0x52, 0x4d, 0x49, 0x00, 0x02, 0x46, 0x00, 0x04, 1, 0, 2, 'x'};
        try (Socket client = connect(); FastSocket accepted = (FastSocket) server.accept()) {
            client.getOutputStream().write(offer);
            HandshakeException e = assertThrows(HandshakeException.class, () -> accepted.getInputStream().read());
            assertTrue(e.getMessage().equals("handshake offer record is truncated: its body ends before its last field"), e.getMessage());
            assertTrue(accepted.isClosed());
            assertEquals(-1, client.getInputStream().read(), "the client sees the connection end");
        }
    }

    @Test
    void aRecordCutShortByTheClientIsTruncated() throws IOException {
        byte[] offer = {0x4a, 0x52, 0x4d, 0x49, 0x00, 0x02, 0x46, 0x00, 0x40, 1, 0};
        try (Socket client = connect(); FastSocket accepted = (FastSocket) server.accept()) {
            client.getOutputStream().write(offer);
            client.shutdownOutput();
            HandshakeException e = assertThrows(HandshakeException.class, () -> accepted.getInputStream().read());
            assertEquals("handshake offer is truncated: the connection ended inside the record", e.getMessage());
        }
    }

    private Socket connect() throws IOException {
        return new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }
}
