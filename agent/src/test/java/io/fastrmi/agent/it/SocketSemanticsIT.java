package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.SocketSemanticsMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sockets FastRMI hands RMI behave as java.net's do on every transport (JDK 25, two agent
 * JVMs): blocking reads and writes, SO_TIMEOUT, half-closes, available(), close() from another
 * thread, EOF on the peer's close, an exception on its death, and 64 connections on 64 threads.
 * "tcp" runs the same scenarios over FastRMI's TCP socket as the reference.
 */
class SocketSemanticsIT {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "ofi:shm", "ofi:tcp;ofi_rxm", "ucx:shm", "ucx:tcp"})
    void socketsBehaveAsJavaNetSays(String transport) throws Exception {
        Path config = ItSupport.transportConfig(ItSupport.directory("sockets-" + transport), transport);
        try (ManagedJvm server = launch(config).name("server").args("server").start()) {
            String port = server.awaitLine(Pattern.compile("^READY port=(\\d+)$"), Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = launch(config).name("client").args("client", transport, port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(3)), () -> client.failure("client").getMessage());
                assertEquals(SocketSemanticsMain.SCENARIOS.stream().map(s -> "PASS " + s).collect(Collectors.toList()),
                        client.output().stream().filter(l -> l.startsWith("PASS ")).collect(Collectors.toList()),
                        () -> String.join("\n", client.output()));
            }
            int exit = server.awaitExit(Duration.ofSeconds(60));
            assertNotEquals(0, exit, "the server was to halt in the last scenario");
            List<String> connections = server.output().stream().filter(l -> l.startsWith("CONN ")).toList();
            assertTrue(connections.size() > 64, () -> String.join("\n", server.output()));
            assertTrue(connections.stream().allMatch(l -> l.equals("CONN " + transport)), () -> String.join("\n", connections));
        }
    }

    private static JvmLauncher launch(Path config) {
        return JvmLauncher.on(Jdk.of(25)).agent(ItSupport.agentJar(), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED").classpathOf(SocketSemanticsMain.class)
                .main(SocketSemanticsMain.class).timeLimit(Duration.ofMinutes(4));
    }
}
