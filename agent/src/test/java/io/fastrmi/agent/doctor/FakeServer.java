package io.fastrmi.agent.doctor;

import io.fastrmi.fastsockets.handshake.Handshake;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A one-connection server on the loopback that reads a FastRMI offer and answers as told: what the
 * test's {@code answer} function writes (given the offer, or null when the client sent no offer).
 */
final class FakeServer implements AutoCloseable {

    /** Writes the server's reply to an offer (null: the client closed without sending an offer). */
    interface Reply {
        void write(Handshake.Offer offer, OutputStream out) throws IOException;
    }

    private final ServerSocket server;
    private final CompletableFuture<Handshake.Offer> received = new CompletableFuture<>();

    FakeServer(Reply reply) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread thread = new Thread(() -> serve(reply), "fake-fastrmi-server");
        thread.setDaemon(true);
        thread.start();
    }

    static FakeServer answering(Function<Handshake.Offer, Handshake.Answer> answer) throws IOException {
        return new FakeServer((offer, out) -> Handshake.writeAnswer(out, answer.apply(offer)));
    }

    int port() {
        return server.getLocalPort();
    }

    /** The offer the client made; null when it connected and sent nothing. */
    Handshake.Offer offer() throws Exception {
        return received.get(10, TimeUnit.SECONDS);
    }

    private void serve(Reply reply) {
        try (Socket socket = server.accept()) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int first = in.read();
            if (first < 0) {
                received.complete(null);
                return;
            }
            byte[] rest = new byte[6];
            in.readFully(rest);
            Handshake.Offer offer = Handshake.readOfferBody(in);
            received.complete(offer);
            reply.write(offer, socket.getOutputStream());
            socket.getOutputStream().flush();
        } catch (IOException | RuntimeException e) {
            received.completeExceptionally(e);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
