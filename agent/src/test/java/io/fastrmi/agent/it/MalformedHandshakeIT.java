package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/**
 * Bad handshakes against a FastRMI server: each gets a clear error, closes only its own connection
 * and is logged once, while a silent client stays connected and other clients are served as usual.
 */
class MalformedHandshakeIT {

    private static final byte[] OPENING = {0x4a, 0x52, 0x4d, 0x49, 0x00, 0x02, 0x46};

    @Test
    void eachBadHandshakeIsRefusedAloneAndTheServerKeepsServing() throws Exception {
        Jdk jdk = Jdk.of(25);
        Path dir = ItSupport.directory("malformed");
        Path agent = ItSupport.agentJar();
        Map<String, byte[]> attacks = new LinkedHashMap<>();
        attacks.put("truncated", concat(OPENING, new byte[] {0x00, 0x40, 1, 0, 2}));
        attacks.put("wrong version", concat(OPENING, new byte[] {0x00, 0x01, 9}));
        attacks.put("huge length", concat(OPENING, new byte[] {(byte) 0xff, (byte) 0xff, 1, 2, 3, 4}));
        attacks.put("garbage record", concat(OPENING, new byte[] {0x00, 0x06, 1, (byte) 0xff, (byte) 0xfe, 7, 7, 7}));
        Map<String, String> expected = Map.of(
                "truncated", "handshake offer is truncated: the connection ended inside the record",
                "wrong version", "handshake offer record version 9 is not supported (this is 1)",
                "huge length", "handshake offer record length 65535 exceeds the limit of 4096 bytes",
                "garbage record", "handshake offer record is truncated: its body ends before its last field");

        try (ManagedJvm server = JvmLauncher.on(jdk).name("server").agent(agent).jfr(dir.resolve("server.jfr"))
                .classpathOf(SampleServer.class).main(SampleServer.class).start()) {
            int port = Integer.parseInt(server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1));
            try (Socket silent = connect(port)) {
                List<Socket> bad = new ArrayList<>();
                for (byte[] bytes : attacks.values()) {
                    Socket socket = connect(port);
                    socket.getOutputStream().write(bytes);
                    socket.shutdownOutput();
                    bad.add(socket);
                }
                Socket notRmi = connect(port);
                notRmi.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

                // Others are served while the silent client is still connected.
                assertEquals(SampleAppIT.expectedTranscript(), runClient(jdk, port, agent));
                assertEquals(SampleAppIT.expectedTranscript(), runClient(jdk, port, null));

                for (Socket socket : bad) {
                    assertServerCloses(socket);
                }
                assertServerCloses(notRmi); // stock RMI's own handling of what is not RMI
                silent.setSoTimeout(200);
                assertThrows(java.net.SocketTimeoutException.class, () -> silent.getInputStream().read(),
                        "the silent client's connection is left open, waiting");
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(60)));

            List<String> output = server.output();
            for (Map.Entry<String, String> attack : expected.entrySet()) {
                List<String> lines = output.stream().filter(l -> l.contains("FastRMI: closing the connection from 127.0.0.1:")
                        && l.contains(attack.getValue())).collect(Collectors.toList());
                assertEquals(1, lines.size(), () -> attack.getKey() + " logged once, in\n" + String.join("\n", output));
            }
        }

        List<RecordedEvent> handshakes = ItSupport.events(dir.resolve("server.jfr"), "fastrmi.Handshake");
        for (String message : expected.values()) {
            assertEquals(1, handshakes.stream().filter(e -> "failed".equals(e.getString("result"))
                    && e.getString("reason").startsWith("bad handshake: " + message)).count(), message);
        }
    }

    private static List<String> runClient(Jdk jdk, int port, Path agent) {
        try (ManagedJvm client = JvmLauncher.on(jdk).name(agent == null ? "plain-client" : "agent-client").agent(agent)
                .classpathOf(SampleClient.class).main(SampleClient.class).args("127.0.0.1", String.valueOf(port)).start()) {
            assertEquals(0, client.awaitExit(Duration.ofMinutes(1)), () -> client.failure("exit").getMessage());
            return client.output().stream().filter(l -> l.startsWith("CALL ")).collect(Collectors.toList());
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(30_000);
        return socket;
    }

    /** Reads what the server sends (a standard server may send a ProtocolNack) until it closes the connection. */
    private static void assertServerCloses(Socket socket) throws IOException {
        try (socket) {
            InputStream in = socket.getInputStream();
            while (in.read() >= 0) {
                // keep reading: only the end matters
            }
        } catch (SocketException reset) {
            // a reset is a close too
        }
    }

    private static byte[] concat(byte[] a, byte[] b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new DataOutputStream(out).write(a);
        out.write(b);
        return out.toByteArray();
    }
}
