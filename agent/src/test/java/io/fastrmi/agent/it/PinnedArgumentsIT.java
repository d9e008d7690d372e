package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What OpenJDK's RMI tests found under the agent on JDK 17 (make jdk-rmi-tests): a call whose
 * arguments fail to marshal left them reachable from its connection's lean streams
 * (PinLastArguments; on the native transports, whose closed connections stay reachable until the
 * peer has closed); and under a Security Manager, JFR's registration of FastRMI's events on RMI's
 * connection threads, which run with no permissions, failed and took the connection with it (RMI's
 * benchmark test). Each case runs {@link PinnedArgumentsMain} in one JVM, calling itself, lean, on
 * the transport, and checks in JFR that the connection was fast.
 */
class PinnedArgumentsIT {

    @ParameterizedTest(name = "{1} on JDK {0}, security manager {2}")
    @CsvSource({"25, ucx:shm, false", "25, ofi:shm, false", "25, tcp, false", "17, ucx:shm, false", "17, ucx:shm, true"})
    void aCallThatFailedToMarshalPinsNoArgument(int feature, String transport, boolean securityManager) throws Exception {
        Path dir = ItSupport.directory("pinned-" + transport + "-" + feature);
        Path config = ItSupport.transportConfig(dir, transport);
        Path jfr = dir.resolve("jvm.jfr");
        JvmLauncher launcher = JvmLauncher.on(Jdk.of(feature)).name("pinned").classpathOf(PinnedArgumentsMain.class)
                .main(PinnedArgumentsMain.class).agent(ItSupport.agentJar(), "config=" + config).jfr(jfr);
        if (feature >= 22) {
            launcher.jvmArgs("--enable-native-access=ALL-UNNAMED");
        }
        if (securityManager) {
            Path policy = Files.writeString(dir.resolve("all.policy"),
                    "grant { permission java.security.AllPermission; };\n");
            launcher.jvmArgs("-Djava.security.manager", "-Djava.security.policy==" + policy);
        }
        try (ManagedJvm jvm = launcher.start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(1)), () -> jvm.failure("pinned").getMessage());
            List<String> output = jvm.output();
            assertTrue(output.contains("FAILED-AS-EXPECTED"), () -> String.join("\n", output));
            assertTrue(output.contains("COLLECTED true"), () -> String.join("\n", output));
        }
        List<RecordedEvent> handshakes = ItSupport.negotiations(jfr);
        assertTrue(handshakes.stream().anyMatch(e -> "fast".equals(e.getString("result"))
                && transport.equals(e.getString("transport"))), handshakes::toString);
    }
}
