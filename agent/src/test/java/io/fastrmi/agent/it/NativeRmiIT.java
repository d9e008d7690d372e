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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sample RMI application over each native transport (JDK 25, FFM): the config lists one
 * transport before tcp, and every connection of both JVMs runs on it, with the same answers as ever.
 */
class NativeRmiIT {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ofi:shm", "ofi:tcp;ofi_rxm", "ucx:shm", "ucx:tcp"})
    void theSampleApplicationRunsOnTheTransport(String transport) throws Exception {
        Path dir = ItSupport.directory("native-rmi-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Path agent = ItSupport.agentJar();
        UnaryOperator<JvmLauncher> setup = jvm -> jvm.agent(agent, "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED");
        SampleRun run = SampleRun.run(Jdk.of(25), dir, setup, setup);

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        for (Path recording : List.of(run.serverJfr(), run.clientJfr())) {
            List<RecordedEvent> handshakes = ItSupport.events(recording, "fastrmi.Handshake");
            assertFalse(handshakes.isEmpty());
            for (RecordedEvent event : handshakes) {
                assertEquals("fast", event.getString("result"), event::toString);
                assertEquals(transport, event.getString("transport"), event::toString);
            }
            SampleAppIT.assertCalls(ItSupport.events(recording, "fastrmi.RmiCall"),
                    recording.equals(run.serverJfr()) ? "server" : "client", SampleAppIT.SERVICE_METHODS, "lookup", true);
        }
        List<String> output = run.serverOutput();
        assertTrue(output.stream().noneMatch(l -> l.contains("is not available") || l.contains("WARNING: A restricted")),
                () -> String.join("\n", output));
    }
}
