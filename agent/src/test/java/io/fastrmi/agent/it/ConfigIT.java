package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.testkit.Jdk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The config as a user meets it in a JVM: where it comes from, its errors, its overrides. (Every error kind: FastRmiConfigTest.) */
class ConfigIT {

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void aBadConfigTurnsTheAgentOffNamingFileAndLineAndRmiStillWorks(int feature) throws Exception {
        Path dir = ItSupport.directory("bad-config-" + feature);
        Path config = dir.resolve("fastrmi.conf");
        Files.write(config, List.of("# cluster", "[host local]", "transprots = tcp"));
        Path agent = ItSupport.agentJar();
        SampleRun run = SampleRun.run(Jdk.of(feature), dir, server -> server.agent(agent, "config=" + config),
                client -> client.agent(agent));

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        String expected = "FastRMI is OFF, this JVM runs plain RMI: " + config + ":3: unknown key 'transprots'";
        assertTrue(run.serverOutput().stream().anyMatch(l -> l.contains(expected)), () -> String.join("\n", run.serverOutput()));
        assertTrue(ItSupport.events(run.serverJfr(), "fastrmi.RmiCall").isEmpty(), "the agent is entirely off");
        assertPlain(run.clientJfr(), "no FastRMI agent on the server (ProtocolNack)");
    }

    @Test
    void theConfigFileCanComeFromThePropertyOrTheEnvironment() throws Exception {
        Path dir = ItSupport.directory("config-sources");
        Path fromProperty = dir.resolve("property.conf");
        Path fromEnvironment = dir.resolve("environment.conf");
        Files.write(fromProperty, List.of("[host local]", "optimize = on"));
        Files.write(fromEnvironment, List.of("[host local]", "optimize = off"));
        Path agent = ItSupport.agentJar();
        SampleRun run = SampleRun.run(Jdk.of(25), dir,
                server -> server.agent(agent).jvmArgs("-Dfastrmi.config=" + fromProperty),
                client -> client.agent(agent).env("FASTRMI_CONFIG", fromEnvironment.toString()));

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        assertTrue(run.serverOutput().stream().anyMatch(l -> l.contains("config: " + fromProperty + " (from -Dfastrmi.config)")));
        assertTrue(run.clientOutput().stream().anyMatch(l -> l.contains("config: " + fromEnvironment + " (from FASTRMI_CONFIG)")));
        assertPlain(run.clientJfr(), "server host is outside per the client's config");
    }

    @Test
    void overridesSwitchTheDefaultsAndAnUnknownPropertyIsAnError() throws Exception {
        Path agent = ItSupport.agentJar();
        SampleRun byProperty = SampleRun.run(Jdk.of(25), ItSupport.directory("override-property"),
                server -> server.agent(agent), client -> client.agent(agent).jvmArgs("-Dfastrmi.optimize=off"));
        // The built-in defaults say "local is inside"; the override wins for every host.
        assertPlain(byProperty.clientJfr(), "server host is outside per the client's config");
        assertEquals(SampleAppIT.expectedTranscript(), byProperty.transcript());

        Path dir = ItSupport.directory("override-environment");
        Path config = dir.resolve("defaults-only.conf");
        Files.write(config, List.of("[defaults]", "optimize = on"));
        SampleRun byEnvironment = SampleRun.run(Jdk.of(25), dir, server -> server.agent(agent),
                client -> client.agent(agent, "config=" + config).env("FASTRMI_OPTIMIZE", "off"));
        assertPlain(byEnvironment.clientJfr(), "server host is outside per the client's config");

        SampleRun unknown = SampleRun.run(Jdk.of(25), ItSupport.directory("override-unknown"),
                server -> server.agent(agent), client -> client.agent(agent).jvmArgs("-Dfastrmi.optimise=on"));
        assertEquals(SampleAppIT.expectedTranscript(), unknown.transcript());
        assertTrue(unknown.clientOutput().stream().anyMatch(l -> l.contains(
                "FastRMI is OFF, this JVM runs plain RMI: -Dfastrmi.optimise: unknown key 'optimise'")),
                () -> String.join("\n", unknown.clientOutput()));
    }

    private static void assertPlain(Path recording, String reason) throws Exception {
        List<RecordedEvent> client = clientHandshakes(recording);
        assertTrue(!client.isEmpty() && client.stream().allMatch(e -> "plain".equals(e.getString("result"))), client::toString);
        assertTrue(client.stream().anyMatch(e -> e.getString("reason").equals(reason)), client::toString);
    }

    private static List<RecordedEvent> clientHandshakes(Path recording) throws Exception {
        return ItSupport.negotiations(recording).stream()
                .filter(e -> "client".equals(e.getString("side"))).toList();
    }
}
