package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sample RMI application over each native transport: the config lists one transport before
 * tcp, and every connection of both JVMs runs on it, with the same answers as ever. On JDK 25, and
 * the shared-memory transports on JDK 21 (PyPI's Temurin runtime, which {@code make deps} installs;
 * skipped, saying so, where there is none).
 */
class NativeRmiIT {

    @ParameterizedTest(name = "JDK {0}, {1}")
    @CsvSource({"25, ofi:shm", "25, ofi:tcp;ofi_rxm", "25, ucx:shm", "25, ucx:tcp", "21, ucx:shm", "21, ofi:shm"})
    void theSampleApplicationRunsOnTheTransport(int feature, String transport) throws Exception {
        if (feature == 21) {
            Assumptions.assumeTrue(Jdk.find(21).isPresent(), "no JDK 21 under /usr/lib/jvm (make deps installs one)");
        }
        Path dir = ItSupport.directory("native-rmi-" + feature + "-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Path agent = ItSupport.agentJar();
        UnaryOperator<JvmLauncher> setup = jvm -> jvm.agent(agent, "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED");
        SampleRun run = SampleRun.run(Jdk.of(feature), dir, setup, setup);

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        for (Path recording : List.of(run.serverJfr(), run.clientJfr())) {
            List<RecordedEvent> handshakes = ItSupport.negotiations(recording);
            assertFalse(handshakes.isEmpty());
            for (RecordedEvent event : handshakes) {
                assertEquals("fast", event.getString("result"), event::toString);
                assertEquals(transport, event.getString("transport"), event::toString);
            }
            SampleAppIT.assertCalls(ItSupport.calls(recording),
                    recording.equals(run.serverJfr()) ? "server" : "client", SampleAppIT.SERVICE_METHODS, "lookup", true);
        }
        List<String> output = run.serverOutput();
        assertTrue(output.stream().noneMatch(l -> l.contains("is not available") || l.contains("WARNING: A restricted")),
                () -> String.join("\n", output));
    }
}
