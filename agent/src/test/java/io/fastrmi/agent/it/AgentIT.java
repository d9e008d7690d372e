package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import io.fastrmi.agent.nativeit.StartupMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The agent as a user meets it: the jfr tool, a late attach, a bad agent argument. */
class AgentIT {

    /** The check from the issue, done the way a user does it: {@code jfr print --events fastrmi.RmiCall}. */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void jfrPrintShowsTheCallsOfAnUnmodifiedRmiProgram(int feature) throws Exception {
        Jdk jdk = Jdk.of(feature);
        Path agent = ItSupport.agentJar();
        SampleRun run = SampleRun.run(jdk, ItSupport.directory("jfr-print-" + feature),
                server -> server.agent(agent), client -> client.agent(agent));

        String server = jfrPrint(jdk, run.serverJfr());
        String client = jfrPrint(jdk, run.clientJfr());
        for (String method : SampleAppIT.SERVICE_METHODS) {
            assertTrue(server.contains("method = \"" + method + "\""), () -> method + " missing in\n" + server);
            assertTrue(client.contains("method = \"" + method + "\""), () -> method + " missing in\n" + client);
        }
        assertTrue(server.contains("side = \"server\"") && client.contains("side = \"client\""));
        assertTrue(server.contains("negotiated = true") && server.contains("peer = \"127.0.0.1:"), server);
        assertTrue(client.contains("fastrmi.RmiCall") && client.contains("duration = "), client);
    }

    /** agentmain: attached to a running server, the agent instruments RMI classes already loaded. */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void attachingToARunningServerInstrumentsItsLoadedRmiClasses(int feature) throws Exception {
        Jdk jdk = Jdk.of(feature);
        Path agent = ItSupport.agentJar();
        SampleRun run = SampleRun.run(jdk, jdk, ItSupport.directory("attach-" + feature), server -> server,
                client -> client, server -> {
                    try {
                        VirtualMachine vm = VirtualMachine.attach(String.valueOf(server.pid()));
                        try {
                            vm.loadAgent(agent.toString());
                        } finally {
                            vm.detach();
                        }
                    } catch (Exception e) {
                        throw server.failure("attach failed: " + e);
                    }
                    server.awaitLine(Pattern.compile("FastRMI .* \\(attached\\) on JDK " + feature), Duration.ofSeconds(30));
                });

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        List<RecordedEvent> events = ItSupport.calls(run.serverJfr());
        SampleAppIT.assertCalls(events, "server", SampleAppIT.SERVICE_METHODS, "lookup", false);
    }

    /**
     * agentmain into a JVM that has used RMI and serialization: RMI's classes and the serialization
     * classes are retransformed together, the weaver made before (made inside that retransformation
     * it would wait on it forever). The JVM goes on and serializes through the woven classes.
     */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void attachingAfterRmiAndSerializationWeavesThemTogether(int feature) throws Exception {
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name("attach-serialized-" + feature)
                .classpathOf(StartupMain.class).main(StartupMain.class)
                .args("rmi-and-serialize").timeLimit(Duration.ofMinutes(2)).start()) {
            jvm.awaitLine(Pattern.compile("^READY$"), Duration.ofSeconds(60));
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(jvm.pid()));
            try {
                vm.loadAgent(ItSupport.agentJar().toString());
            } finally {
                vm.detach();
            }
            jvm.awaitLine(Pattern.compile("FastRMI .* \\(attached\\) on JDK " + feature), Duration.ofSeconds(30));
            jvm.send("go");
            assertEquals(0, jvm.awaitExit(Duration.ofSeconds(60)), () -> String.join("\n", jvm.output()));
            assertEquals(2, jvm.output().stream().filter(l -> l.equals("read a string")).count(), jvm.output()::toString);
            assertTrue(jvm.output().stream().noneMatch(l -> l.contains("cannot instrument")), jvm.output()::toString);
        }
    }

    /** A bad agent argument switches FastRMI off, loudly; the application runs as plain RMI. */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void aBadAgentArgumentTurnsTheAgentOffAndNothingElse(int feature) throws Exception {
        Jdk jdk = Jdk.of(feature);
        Path agent = ItSupport.agentJar();
        SampleRun run = SampleRun.run(jdk, ItSupport.directory("bad-argument-" + feature),
                server -> server.agent(agent, "confg=/etc/fastrmi.conf"), client -> client.agent(agent));

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        assertTrue(run.serverOutput().stream().anyMatch(l -> l.contains("FastRMI is OFF, this JVM runs plain RMI")
                && l.contains("unknown agent argument key 'confg'")), () -> String.join("\n", run.serverOutput()));
        assertTrue(ItSupport.events(run.serverJfr(), "fastrmi.RmiCall").isEmpty());
        SampleAppIT.assertCalls(ItSupport.calls(run.clientJfr()), "client",
                SampleAppIT.SERVICE_METHODS, "lookup", false);
    }

    private static String jfrPrint(Jdk jdk, Path recording) throws IOException, InterruptedException {
        Process jfr = new ProcessBuilder(jdk.tool("jfr").toString(), "print", "--events", "fastrmi.RmiCall",
                recording.toString()).redirectErrorStream(true).start();
        byte[] out = jfr.getInputStream().readAllBytes();
        assertTrue(jfr.waitFor(60, TimeUnit.SECONDS));
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, jfr.exitValue(), text);
        return text;
    }
}
