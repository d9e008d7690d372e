package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.GreetingMain;
import io.fastrmi.agent.nativeit.SocketSemanticsMain;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.fastsockets.handshake.Jrmp;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * scope = jvm: java.net sockets between two agent JVMs of this host go native, with java.net's
 * semantics (and so do those negotiated fast over tcp, whose reads poll before they block); a server that speaks first keeps working with clients with and without the agent, and
 * a client with the agent keeps working with a server without it; RMI still negotiates for itself.
 */
class JvmScopeIT {

    private static final Pattern READY = Pattern.compile("^READY port=(\\d+)$");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:shm", "tcp"})
    void javaNetSocketsBetweenAgentJvmsGoNative(String transport) throws Exception {
        Path config = jvmScopeConfig(ItSupport.directory("jvm-sockets-" + transport), transport);
        UnaryOperator<JvmLauncher> agent = withAgent(config);
        try (ManagedJvm server = semantics(agent).name("server").args("server-jvm").start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = semantics(agent).name("client").args("client-jvm", transport, port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(3)), () -> client.failure("client").getMessage());
                assertEquals(SocketSemanticsMain.SCENARIOS.stream().map(s -> "PASS " + s).collect(Collectors.toList()),
                        client.output().stream().filter(l -> l.startsWith("PASS ")).collect(Collectors.toList()),
                        () -> String.join("\n", client.output()));
            }
            assertNotEquals(0, server.awaitExit(Duration.ofSeconds(60)), "the server was to halt in the last scenario");
            List<String> connections = server.output().stream().filter(l -> l.startsWith("CONN ")).toList();
            assertTrue(connections.size() > 64, () -> String.join("\n", server.output()));
            assertTrue(connections.stream().allMatch(l -> l.equals("CONN " + transport)), () -> String.join("\n", connections));
            // closeBeforeUse: the server read the end of that stream, not an error
            assertEquals(1, server.output().stream().filter(l -> l.startsWith("EOF ")).count(), () -> String.join("\n", server.output()));
            assertTrue(server.output().stream().noneMatch(l -> l.startsWith("HANDLER ")), () -> String.join("\n", server.output()));
        }
    }

    /**
     * The orders of events that two JVMs race through, forced with both ends in one JVM: a client
     * that closes unused after the listener answered is the end of the stream there, and a first
     * byte of data that equals the unused signal is data.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "ucx:shm"})
    void aClientThatClosesAfterTheAnswerIsTheEndOfTheStream(String transport) throws Exception {
        Path config = jvmScopeConfig(ItSupport.directory("jvm-both-ends-" + transport), transport);
        try (ManagedJvm jvm = semantics(withAgent(config)).name("both-ends").args("both-jvm").start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("both-ends").getMessage());
            assertEquals(SocketSemanticsMain.BOTH_ENDS_SCENARIOS.stream().map(s -> "PASS " + s).toList(),
                    jvm.output().stream().filter(l -> l.startsWith("PASS ")).toList(), () -> String.join("\n", jvm.output()));
        }
    }

    /**
     * A listener in a JVM with scope = jvm greets first: an agent client with scope = jvm gets the
     * greeting over shared memory; a client without the agent, and one on JDK 17 (where scope = jvm
     * cannot be had), get it over plain TCP at once: the server waits for no offer from them.
     */
    @Test
    void aListenerThatSpeaksFirstServesEveryKindOfClient() throws Exception {
        Path config = jvmScopeConfig(ItSupport.directory("jvm-greeting-server"), "ucx:shm");
        try (ManagedJvm server = greeting(Jdk.of(25), withAgent(config)).name("server").args("server").start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);

            List<String> agentClient = talk(greeting(Jdk.of(25), withAgent(config)).name("agent-client"), port);
            assertTrue(agentClient.contains("TRANSPORT ucx:shm"), () -> String.join("\n", agentClient));

            List<String> plainClient = talk(greeting(Jdk.of(25), jvm -> jvm).name("plain-client"), port);
            assertTrue(plainClient.contains("TRANSPORT none"), () -> String.join("\n", plainClient));

            List<String> oldClient = talk(greeting(Jdk.of(17),
                    jvm -> jvm.agent(ItSupport.agentJar(), "config=" + config)).name("jdk17-client"), port);
            assertTrue(oldClient.contains("TRANSPORT none"), () -> String.join("\n", oldClient));
            assertTrue(oldClient.stream().anyMatch(l -> l.contains("scope = jvm is not in effect")
                    && l.contains("JDK 22 or newer")), () -> String.join("\n", oldClient));

            assertEquals(List.of("CONN ucx:shm", "CONN none", "CONN none"), connections(server, 3));
            assertTrue(server.output().stream().noneMatch(l -> l.startsWith("HANDLER ")), () -> String.join("\n", server.output()));
        }
    }

    /** An agent JVM with scope = jvm sends nothing unexpected to a server without the agent that greets first. */
    @Test
    void aClientWithJvmScopeTalksToAServerWithoutTheAgent() throws Exception {
        Path config = jvmScopeConfig(ItSupport.directory("jvm-greeting-client"), "ucx:shm");
        try (ManagedJvm server = greeting(Jdk.of(25), jvm -> jvm).name("server").args("server").start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);
            List<String> client = talk(greeting(Jdk.of(25), withAgent(config)).name("client"), port);
            assertTrue(client.contains("TRANSPORT none"), () -> String.join("\n", client));
            assertEquals(List.of("CONN none"), connections(server, 1));
            assertTrue(server.output().stream().noneMatch(l -> l.startsWith("HANDLER ")), () -> String.join("\n", server.output()));
        }
    }

    /**
     * A connection that announces an offer (its marker, written here by hand) and then sends
     * something else: that connection fails with an error that names the bytes, the listener goes
     * on serving, and the next client gets every scenario on the transport.
     */
    @Test
    void aMalformedOfferClosesOnlyItsConnection() throws Exception {
        onlyTheBadConnectionCloses("jvm-malformed", "ucx:shm",
                socket -> socket.getOutputStream().write("HELO there, not an offer\n".getBytes(StandardCharsets.US_ASCII)),
                "expected a FastRMI offer, got the opening 48454c4f 2074 68");
    }

    /**
     * A client that offers the acknowledgement of a socket answer and then sends another byte in its
     * place: that connection fails with an error that names the byte, and the listener goes on.
     */
    @Test
    void aByteInPlaceOfTheAcknowledgementClosesOnlyItsConnection() throws Exception {
        onlyTheBadConnectionCloses("jvm-bad-acknowledgement", "tcp", socket -> {
            Handshake.Offer offer = new Handshake.Offer(Installation.fingerprint(), Set.of(),
                    List.of(new Handshake.Transport(TransportName.TCP, ""))).acknowledgingSocketAnswer();
            Handshake.writeOffer(socket.getOutputStream(), offer);
            socket.setSoTimeout(30_000);
            assertEquals(Jrmp.PROTOCOL_FASTRMI, socket.getInputStream().read());
            Handshake.Answer answer = Handshake.readAnswerBody(socket.getInputStream());
            assertTrue(answer.awaitsAcknowledgement(), answer::toString);
            socket.getOutputStream().write(new byte[] {'X', (byte) SocketSemanticsMain.ECHO});
        }, "byte 0x58", "acknowledgement of the answer (0x06) was due");
    }

    /** What a hand-made client sends on a connection that announced an offer. */
    private interface BadClient {
        void talk(Socket socket) throws IOException;
    }

    /**
     * A listener on {@code transport} meets {@code client}: that connection is closed (or reset),
     * its handler's error holds each of {@code named}, and the next client gets every scenario.
     */
    private static void onlyTheBadConnectionCloses(String directory, String transport, BadClient client, String... named)
            throws Exception {
        Path config = jvmScopeConfig(ItSupport.directory(directory), transport);
        UnaryOperator<JvmLauncher> agent = withAgent(config);
        try (ManagedJvm server = semantics(agent).name("server").args("server-jvm").start()) {
            int port = Integer.parseInt(server.awaitLine(READY, Duration.ofSeconds(60)).group(1));
            try (Socket socket = announcedConnection(port)) {
                client.talk(socket);
                socket.setSoTimeout(30_000);
                try {
                    assertEquals(-1, socket.getInputStream().read(), "the listener closed that connection");
                } catch (SocketException reset) {
                    // or reset it: closed either way
                }
            }
            String failure = server.awaitLine(Pattern.compile("^HANDLER .*"), Duration.ofSeconds(30)).group();
            for (String part : named) {
                assertTrue(failure.contains(part), failure);
            }
            try (ManagedJvm good = semantics(agent).name("client").args("client-jvm", transport, Integer.toString(port)).start()) {
                assertEquals(0, good.awaitExit(Duration.ofMinutes(3)), () -> good.failure("client").getMessage());
            }
        }
    }

    /** A connection to a listener of this host with the marker that says an offer follows, written by hand. */
    private static Socket announcedConnection(int port) throws IOException {
        Path listeners = Path.of(System.getProperty("java.io.tmpdir"), "fastrmi-" + System.getProperty("user.name"),
                "listeners", "net-" + Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString().replaceAll("[^0-9]", ""));
        assertTrue(Files.exists(listeners.resolve("listen-" + port)), "the listener registered itself in " + listeners);
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ProcessHandle self = ProcessHandle.current();
        Files.writeString(listeners.resolve("connect-" + port + "-" + socket.getLocalPort()),
                self.pid() + " " + self.info().startInstant().orElseThrow().toEpochMilli());
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return socket;
    }

    /** RMI's connections under scope = jvm negotiate once, as RMI's, and run on the native transport. */
    @Test
    void rmiStillNegotiatesForItself() throws Exception {
        Path dir = ItSupport.directory("jvm-rmi");
        Path config = jvmScopeConfig(dir, "ucx:shm");
        SampleRun run = SampleRun.run(Jdk.of(25), dir, withAgent(config), withAgent(config));
        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        for (Path recording : List.of(run.serverJfr(), run.clientJfr())) {
            List<RecordedEvent> handshakes = ItSupport.negotiations(recording);
            assertFalse(handshakes.isEmpty());
            for (RecordedEvent event : handshakes) {
                assertEquals("rmi", event.getString("scope"), event::toString);
                assertEquals("fast", event.getString("result"), event::toString);
                assertEquals("ucx:shm", event.getString("transport"), event::toString);
            }
        }
    }

    /** The server's CONN lines once there are {@code count} (each is printed before the client's last read). */
    private static List<String> connections(ManagedJvm server, int count) throws InterruptedException {
        long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<String> lines;
        while ((lines = server.output().stream().filter(l -> l.startsWith("CONN ")).toList()).size() < count
                && System.nanoTime() < giveUp) {
            Thread.sleep(50);
        }
        return lines;
    }

    private static List<String> talk(JvmLauncher client, String port) {
        try (ManagedJvm jvm = client.args("client", port).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(1)), () -> jvm.failure("client").getMessage());
            List<String> output = jvm.output();
            assertTrue(output.contains("DONE"), () -> String.join("\n", output));
            return output;
        }
    }

    private static JvmLauncher semantics(UnaryOperator<JvmLauncher> setup) {
        return setup.apply(JvmLauncher.on(Jdk.of(25)).classpathOf(SocketSemanticsMain.class).main(SocketSemanticsMain.class)
                .timeLimit(Duration.ofMinutes(4)));
    }

    private static JvmLauncher greeting(Jdk jdk, UnaryOperator<JvmLauncher> setup) {
        return setup.apply(JvmLauncher.on(jdk).classpathOf(GreetingMain.class).main(GreetingMain.class)
                .timeLimit(Duration.ofMinutes(2)));
    }

    private static UnaryOperator<JvmLauncher> withAgent(Path config) {
        return jvm -> jvm.agent(ItSupport.agentJar(), "config=" + config).jvmArgs("--enable-native-access=ALL-UNNAMED");
    }

    private static Path jvmScopeConfig(Path dir, String transport) throws IOException {
        Path config = dir.resolve("fastrmi.conf");
        Files.write(config, List.of("scope = jvm", "[host local]", "optimize = on",
                "transports = " + (transport.equals("tcp") ? "tcp" : transport + ", tcp")));
        return config;
    }
}
