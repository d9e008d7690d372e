package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ofi:tcp;ofi_rxm", "ucx:tcp"})
    void theTransportCarriesRmiAndSocketsAcrossHosts(String transport) throws Exception {
        TestNetwork.requireAvailable();
        Path dir = ItSupport.directory("native-hosts-" + transport);
        try (TestNetwork net = TestNetwork.create("host1", "host2")) {
            Path config = dir.resolve("fastrmi.conf");
            Files.write(config, List.of("[host " + net.address("host1") + " " + net.address("host2") + "]",
                    "optimize = on", "transports = " + transport + ", tcp"));

            assertEverySampleConnectionIsOn(transport, net, config, dir);

            try (ManagedJvm server = launch(net, "host1", config).name("socket-server")
                    .classpathOf(SocketSemanticsMain.class).main(SocketSemanticsMain.class).args("server").start()) {
                String port = server.awaitLine(Pattern.compile("^READY port=(\\d+)$"), Duration.ofSeconds(60)).group(1);
                try (ManagedJvm client = launch(net, "host2", config).name("socket-client")
                        .classpathOf(SocketSemanticsMain.class).main(SocketSemanticsMain.class)
                        .args("client", transport, port, net.address("host1")).start()) {
                    assertEquals(0, client.awaitExit(Duration.ofMinutes(3)), () -> client.failure("client").getMessage());
                    assertEquals(SocketSemanticsMain.SCENARIOS.stream().map(s -> "PASS " + s).collect(Collectors.toList()),
                            client.output().stream().filter(l -> l.startsWith("PASS ")).collect(Collectors.toList()));
                }
                server.awaitExit(Duration.ofSeconds(60));
                assertTrue(server.output().stream().filter(l -> l.startsWith("CONN ")).allMatch(l -> l.equals("CONN " + transport)),
                        () -> String.join("\n", server.output()));
            }
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
            Path config = dir.resolve("fastrmi.conf");
            Files.write(config, List.of("[host " + net.address("host1") + " " + net.address("host2") + "]",
                    "optimize = on", "transports = ucx:shm, ofi:shm, ofi:tcp;ofi_rxm, tcp"));
            assertEverySampleConnectionIsOn("ofi:tcp;ofi_rxm", net, config, dir);
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
            List<RecordedEvent> handshakes = ItSupport.events(recording, "fastrmi.Handshake");
            assertFalse(handshakes.isEmpty(), recording::toString);
            for (RecordedEvent event : handshakes) {
                assertEquals("fast", event.getString("result"), event::toString);
                assertEquals(transport, event.getString("transport"), event::toString);
            }
        }
    }

    private static JvmLauncher launch(TestNetwork net, String host, Path config) {
        return JvmLauncher.on(Jdk.of(25)).agent(ItSupport.agentJar(), "config=" + config.toAbsolutePath())
                .jvmArgs("--enable-native-access=ALL-UNNAMED").wrapper(net.exec(host)).jvmArgs(net.jvmFlags(host))
                .timeLimit(TIME_LIMIT);
    }
}
