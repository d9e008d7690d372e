package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.GreetingMain;
import io.fastrmi.agent.nativeit.SocketSemanticsMain;
import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import io.fastrmi.testkit.TestNetwork;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native transports that cross hosts, between two hosts in network namespaces (their own
 * addresses on veth pairs): the sample RMI application, then the socket-semantics scenarios, run
 * from host2 to a server on host1 over the transport, every connection fast on it at both ends; and
 * a shared-memory transport listed first is used only between JVMs that share /dev/shm.
 */
class NativeMultiHostIT {

    private static final Duration TIME_LIMIT = Duration.ofMinutes(3);
    private static final Pattern READY = Pattern.compile("^READY port=(\\d+)$");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ofi:tcp;ofi_rxm", "ucx:tcp"})
    void theTransportCarriesRmiAndSocketsAcrossHosts(String transport) throws Exception {
        TestNetwork.requireAvailable();
        Path dir = ItSupport.directory("native-hosts-" + transport);
        try (TestNetwork net = TestNetwork.create("host1", "host2")) {
            Path config = hostsConfig(net, dir, List.of(), "optimize = on", "optimizations = all", "transports = " + transport + ", tcp");

            assertEverySampleConnectionIsOn(transport, net, config, dir);

            assertSocketScenariosOn(transport, "", net, config);
        }
    }

    /**
     * One config for both hosts lists shared memory first, as a cluster's config would: between
     * JVMs of different hosts (here: network namespaces) the next transport is negotiated instead,
     * never a connection that cannot work.
     */
    @Test
    void sharedMemoryIsNeverChosenAcrossHosts() throws Exception {
        TestNetwork.requireAvailable();
        Path dir = ItSupport.directory("native-hosts-shm");
        try (TestNetwork net = TestNetwork.create("host1", "host2")) {
            Path config = hostsConfig(net, dir, List.of(), "optimize = on", "transports = ucx:shm, ofi:shm, ofi:tcp;ofi_rxm, tcp");
            assertEverySampleConnectionIsOn("ofi:tcp;ofi_rxm", net, config, dir);
        }
    }

    /**
     * scope = jvm across hosts, where the config names the listeners' ports (jvm-ports): java.net
     * sockets from host2 to host1 run the socket-semantics scenarios on the transport; a listener
     * that greets first serves a client with the agent natively and one without it plainly, at once.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:tcp", "ofi:tcp;ofi_rxm"})
    void javaNetSocketsCrossHostsToTheListenersTheConfigNames(String transport) throws Exception {
        TestNetwork.requireAvailable();
        Path dir = ItSupport.directory("jvm-scope-across-" + transport);
        try (TestNetwork net = TestNetwork.create("host1", "host2")) {
            Path config = hostsConfig(net, dir, List.of("scope = jvm"), "optimize = on", "transports = " + transport + ", tcp",
                    "jvm-ports = 1024-60999");
            assertSocketScenariosOn(transport, "-jvm", net, config);
            try (ManagedJvm server = launch(net, "host1", config).name("greeting-server").classpathOf(GreetingMain.class)
                    .main(GreetingMain.class).args("server").start()) {
                String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);
                List<String> agentClient = greet(launch(net, "host2", config).name("agent-client"), port, net.address("host1"));
                assertTrue(agentClient.contains("TRANSPORT " + transport), () -> String.join("\n", agentClient));
                List<String> plainClient = greet(JvmLauncher.on(Jdk.of(25)).wrapper(net.exec("host2")).jvmArgs(net.jvmFlags("host2"))
                        .timeLimit(TIME_LIMIT).name("plain-client"), port, net.address("host1"));
                assertTrue(plainClient.contains("TRANSPORT none"), () -> String.join("\n", plainClient));
                assertTrue(server.output().stream().noneMatch(l -> l.startsWith("HANDLER ")), () -> String.join("\n", server.output()));
            }
        }
    }

    private static List<String> greet(JvmLauncher client, String port, String host) {
        try (ManagedJvm jvm = client.classpathOf(GreetingMain.class).main(GreetingMain.class).args("client", port, host).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(1)), () -> jvm.failure("client").getMessage());
            assertTrue(jvm.output().contains("DONE"), () -> String.join("\n", jvm.output()));
            return jvm.output();
        }
    }

    /**
     * scope = jvm: host2 has a FastRMI listener on the same port as host1's server without the
     * agent. A client on host2 connecting to host1's port offers nothing (that listener is another
     * host's server), and host1's server, which greets first, works as without FastRMI.
     */
    @Test
    void aListenerOfThisHostSaysNothingOfTheSamePortElsewhere() throws Exception {
        TestNetwork.requireAvailable();
        Path dir = ItSupport.directory("jvm-scope-hosts");
        try (TestNetwork net = TestNetwork.create("host1", "host2")) {
            Path config = hostsConfig(net, dir, List.of("scope = jvm", "[host local]", "optimize = on",
                    "transports = ucx:shm, tcp"), "optimize = on", "transports = ucx:shm, tcp");
            try (ManagedJvm plain = JvmLauncher.on(Jdk.of(25)).wrapper(net.exec("host1")).jvmArgs(net.jvmFlags("host1"))
                    .name("host1-server").classpathOf(GreetingMain.class).main(GreetingMain.class).args("server")
                    .timeLimit(TIME_LIMIT).start()) {
                String port = plain.awaitLine(READY, Duration.ofSeconds(60)).group(1);
                try (ManagedJvm local = launch(net, "host2", config).name("host2-server").classpathOf(GreetingMain.class)
                        .main(GreetingMain.class).args("server", port).start()) {
                    local.awaitLine(READY, Duration.ofSeconds(60));
                    try (ManagedJvm client = launch(net, "host2", config).name("client").classpathOf(GreetingMain.class)
                            .main(GreetingMain.class).args("client", port, net.address("host1")).start()) {
                        assertEquals(0, client.awaitExit(Duration.ofMinutes(1)), () -> client.failure("client").getMessage());
                        assertTrue(client.output().contains("TRANSPORT none"), () -> String.join("\n", client.output()));
                    }
                }
                assertTrue(plain.output().stream().noneMatch(l -> l.startsWith("HANDLER ")), () -> String.join("\n", plain.output()));
            }
        }
    }

    /** The sample app from host2 to a server on host1, every handshake on {@code transport}. */
    private static void assertEverySampleConnectionIsOn(String transport, TestNetwork net, Path config, Path dir)
            throws Exception {
        Path serverJfr = dir.resolve("server.jfr");
        Path clientJfr = dir.resolve("client.jfr");
        try (ManagedJvm server = launch(net, "host1", config).name("server").jfr(serverJfr)
                .classpathOf(SampleServer.class).main(SampleServer.class).start()) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = launch(net, "host2", config).name("client").jfr(clientJfr)
                    .classpathOf(SampleClient.class).main(SampleClient.class)
                    .args(net.address("host1"), port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("client").getMessage());
                assertEquals(SampleAppIT.expectedTranscript(), client.output().stream()
                        .filter(l -> l.startsWith("CALL ")).collect(Collectors.toList()));
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(60)), () -> server.failure("server").getMessage());
        }
        for (Path recording : List.of(serverJfr, clientJfr)) {
            List<RecordedEvent> handshakes = ItSupport.negotiations(recording);
            assertFalse(handshakes.isEmpty(), recording::toString);
            for (RecordedEvent event : handshakes) {
                assertEquals("fast", event.getString("result"), event::toString);
                assertEquals(transport, event.getString("transport"), event::toString);
            }
        }
    }

    /**
     * The socket-semantics scenarios from host2 to a server on host1, every connection on
     * {@code transport}; {@code mode} "" uses RMI's sockets, "-jvm" java.net's (scope = jvm).
     */
    private static void assertSocketScenariosOn(String transport, String mode, TestNetwork net, Path config) {
        try (ManagedJvm server = launch(net, "host1", config).name("socket-server").classpathOf(SocketSemanticsMain.class)
                .main(SocketSemanticsMain.class).args("server" + mode).start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = launch(net, "host2", config).name("socket-client").classpathOf(SocketSemanticsMain.class)
                    .main(SocketSemanticsMain.class).args("client" + mode, transport, port, net.address("host1")).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(3)), () -> client.failure("client").getMessage());
                assertEquals(SocketSemanticsMain.SCENARIOS.stream().map(s -> "PASS " + s).collect(Collectors.toList()),
                        client.output().stream().filter(l -> l.startsWith("PASS ")).collect(Collectors.toList()));
            }
            server.awaitExit(Duration.ofSeconds(60));
            assertTrue(server.output().stream().filter(l -> l.startsWith("CONN ")).allMatch(l -> l.equals("CONN " + transport)),
                    () -> String.join("\n", server.output()));
        }
    }

    /** A config with {@code globals} first (keys, or whole sections), then one section for both hosts. */
    private static Path hostsConfig(TestNetwork net, Path dir, List<String> globals, String... hostKeys)
            throws java.io.IOException {
        List<String> lines = new java.util.ArrayList<>(globals);
        lines.add("[host " + net.address("host1") + " " + net.address("host2") + "]");
        lines.addAll(List.of(hostKeys));
        return Files.write(dir.resolve("fastrmi.conf"), lines);
    }

    private static JvmLauncher launch(TestNetwork net, String host, Path config) {
        return JvmLauncher.on(Jdk.of(25)).agent(ItSupport.agentJar(), "config=" + config.toAbsolutePath())
                .jvmArgs("--enable-native-access=ALL-UNNAMED").wrapper(net.exec(host)).jvmArgs(net.jvmFlags(host))
                .timeLimit(TIME_LIMIT);
    }
}
