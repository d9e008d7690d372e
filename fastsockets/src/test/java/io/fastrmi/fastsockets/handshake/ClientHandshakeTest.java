package io.fastrmi.fastsockets.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a client makes of a server that does not answer its offer, over a real local connection:
 * only a standard server's ProtocolNack is a refusal to remember; a server that closes on the
 * offer (a JVM exiting, say) gets a plain connection this once.
 */
class ClientHandshakeTest {

    @Test
    void aProtocolNackIsARefusal() throws Exception {
        ClientHandshake.Outcome outcome = exchangeWith(server -> server.getOutputStream().write(Jrmp.PROTOCOL_NACK));
        assertNull(outcome.answer());
        assertEquals(ClientHandshake.NACK, outcome.plainReason());
        assertTrue(outcome.refused(), "a standard server's Nack is remembered");
    }

    @Test
    void aServerThatClosesOnTheOfferIsNotRemembered() throws Exception {
        ClientHandshake.Outcome outcome = exchangeWith(server -> {
        });
        assertNull(outcome.answer());
        assertEquals(ClientHandshake.CLOSED, outcome.plainReason());
        assertFalse(outcome.refused(), "a close is a server going away, not one without the agent");
    }

    private interface ServerSide {
        void afterTheOffer(Socket server) throws IOException;
    }

    /** The offer sent to a local server that reads all of it, does {@code then}, and closes. */
    private static ClientHandshake.Outcome exchangeWith(ServerSide then) throws Exception {
        byte[] offer = HandshakeTest.offerBytes(HandshakeTest.OFFER);
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                try (Socket accepted = listener.accept()) {
                    InputStream in = accepted.getInputStream();
                    for (int i = 0; i < offer.length; i++) {
                        if (in.read() < 0) {
                            throw new IOException("the offer ended after " + i + " bytes");
                        }
                    }
                    then.afterTheOffer(accepted);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (Socket client = new Socket(listener.getInetAddress(), listener.getLocalPort())) {
                client.setSoTimeout(10_000);
                ClientHandshake.Outcome outcome = ClientHandshake.exchange(client, HandshakeTest.OFFER);
                server.get(10, TimeUnit.SECONDS);
                return outcome;
            }
        }
    }
}
