package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.config.TransportName;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Native byte streams between two JVMs through the FFM binding (JDK 25), on each backend and
 * provider: every size from 1 byte to 16 MiB comes back intact, primitive arrays written straight
 * from the array too, and the end of the stream arrives.
 */
class NativeStreamIT {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ofi:shm", "ofi:tcp;ofi_rxm", "ucx:shm", "ucx:tcp"})
    void anEchoComesBackIntact(String transport) throws Exception {
        Path library = Path.of(System.getProperty("fastrmi.native.library"));
        Jdk jdk = Jdk.of(25);
        try (ManagedJvm server = launch(jdk, "server", library, transport).start()) {
            String port = server.awaitLine(java.util.regex.Pattern.compile("^READY port=(\\d+)$"), Duration.ofSeconds(30))
                    .group(1);
            try (ManagedJvm client = launch(jdk, "client", library, transport).args(port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("client").getMessage());
                List<String> expected = new ArrayList<>();
                for (int size : NativeEchoMain.SIZES) {
                    expected.add("ECHO " + size);
                }
                expected.add("ARRAY 800000");
                expected.add("ARRAY 4000");
                expected.add("EOF");
                expected.add("DONE");
                assertEquals(expected, client.output().stream()
                        .filter(l -> l.startsWith("ECHO") || l.startsWith("ARRAY") || l.equals("EOF") || l.equals("DONE")).collect(Collectors.toList()),
                        () -> String.join("\n", client.output()));
            }
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), () -> server.failure("server").getMessage());
        }
    }

    private static JvmLauncher launch(Jdk jdk, String role, Path library, String transport) {
        return JvmLauncher.on(jdk).name(role).jvmArgs("--enable-native-access=ALL-UNNAMED")
                .classpath(Path.of(System.getProperty("fastrmi.fastsockets.jar")))
                .classpath(JvmLauncher.codeSourceOf(TransportName.class))
                .classpath(JvmLauncher.codeSourceOf(NativeEchoMain.class))
                .main(NativeEchoMain.class).args(role, library.toString(), transport).timeLimit(Duration.ofMinutes(3));
    }
}
