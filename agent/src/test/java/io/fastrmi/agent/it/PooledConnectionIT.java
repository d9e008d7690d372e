package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.PausedCallsMain;
import io.fastrmi.agent.nativeit.PooledConnectionMain;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RMI pings a pooled connection's server before it reuses the connection, once the connection
 * has been idle longer than the last ping's round trip (a call after think time always). A
 * connection negotiated fast is reused without that round trip: a native one knows its peer's
 * close and death from its control channel, one over TCP from a look at its socket. A connection
 * whose server died is still not reused: the next call fails as stock RMI's does, with {@code
 * java.rmi.ConnectException} (its new connection refused). A client without the agent pings as
 * stock's, which shows that the field the test reads tells.
 */
class PooledConnectionIT {

    private static final Pattern ROUNDTRIPS = Pattern.compile("^ROUNDTRIPS \\[(.*)]$");
    /** {@code TCPConnection.roundtrip} before RMI first pings: a measured one is a whole even number of ms. */
    private static final String NEVER_PINGED = "5";

    /** The transport column's value for a client without the agent: its connections are plain. */
    private static final String PLAIN_CLIENT = "plain client";

    @ParameterizedTest(name = "JDK {0}, {1}")
    @CsvSource({"25, ucx:shm", "25, ofi:shm", "25, tcp", "17, ucx:shm", "17, tcp", "25, plain client"})
    void callsAfterThinkTimeReuseAFastConnectionWithoutAPing(int feature, String transport) throws Exception {
        Path dir = ItSupport.directory("pooled-connection-" + feature + "-" + transport.replace(':', '-'));
        boolean plain = transport.equals(PLAIN_CLIENT);
        Path config = ItSupport.transportConfig(dir, plain ? "tcp" : transport);
        Jdk jdk = Jdk.of(feature);
        try (ManagedJvm server = ItSupport.agentSampleServer(jdk, config)) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = client(jdk, plain ? null : config, port)) {
                List<String> roundTrips = Arrays.asList(client.awaitLine(ROUNDTRIPS, Duration.ofSeconds(60)).group(1).split(", "));
                System.out.println(transport + ": pooled connections' ping round trips " + roundTrips);
                assertFalse(roundTrips.isEmpty() || roundTrips.get(0).isEmpty(), "no pooled connection");
                if (plain) {
                    assertTrue(roundTrips.stream().anyMatch(r -> !r.equals(NEVER_PINGED)), roundTrips::toString);
                } else {
                    assertTrue(roundTrips.stream().allMatch(NEVER_PINGED::equals), roundTrips::toString);
                }

                client.send("call");
                assertEquals("OK", answer(client, 1).group(1));
                server.close(); // SIGKILL, while the client's connection is idle in RMI's pool
                Thread.sleep(500);
                client.send("call");
                Matcher second = answer(client, 2);
                assertEquals("FAILED java.rmi.ConnectException", second.group(1), second.group(0));
            }
        }
    }

    /**
     * The check runs on every reuse, however rarely a job pauses: after a run of calls back to
     * back (compiled by C2), the first call after think time deoptimizes nothing of FastRMI's. A
     * way through the check that the run never took compiles to a trap; it deoptimized RMI's whole
     * {@code UnicastRef.invoke} before, which then ran interpreted through the next calls.
     */
    @ParameterizedTest(name = "JDK 25, {0}")
    @CsvSource({"tcp", "ucx:shm"})
    void callsAfterThinkTimeDeoptimizeNothingOfTheCheck(String transport) throws Exception {
        Path dir = ItSupport.directory("pooled-connection-deopt-" + transport.replace(':', '-'));
        Path config = ItSupport.transportConfig(dir, transport);
        Jdk jdk = Jdk.of(25);
        try (ManagedJvm server = ItSupport.agentSampleServer(jdk, config)) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            JvmLauncher launcher = ItSupport.underAgent(JvmLauncher.on(jdk).name("client"), config)
                    .jvmArgs("-Xlog:deoptimization=debug");
            try (ManagedJvm client = launcher.classpathOf(SampleServer.class).classpathOf(PausedCallsMain.class)
                    .main(PausedCallsMain.class).args("127.0.0.1", port, "30000", "50", "5").start()) {
                assertEquals(0, client.awaitExit(Duration.ofSeconds(120)), () -> String.join("\n", client.output()));
                List<String> output = client.output();
                int paused = output.indexOf("PAUSED");
                assertTrue(paused >= 0 && output.contains("DONE"), () -> String.join("\n", output));
                List<String> ours = output.subList(paused, output.size()).stream()
                        .filter(l -> l.contains("[deoptimization]") && l.contains("io.fastrmi.")).toList();
                System.out.println(transport + ": deoptimizations in FastRMI's code after the pause: " + ours);
                assertTrue(ours.isEmpty(), String.join("\n", ours));
            }
        }
    }

    private static Matcher answer(ManagedJvm client, int n) {
        return client.awaitLine(Pattern.compile("^ANSWER " + n + " (OK|FAILED [^:]+)"), Duration.ofSeconds(30));
    }

    /** {@code config}: the client's agent config, or null for a client without the agent. */
    private static ManagedJvm client(Jdk jdk, Path config, String port) {
        JvmLauncher jvm = JvmLauncher.on(jdk).name("client");
        if (config != null) {
            jvm = ItSupport.underAgent(jvm, config);
        }
        for (String pkg : List.of("java.rmi.server", "sun.rmi.server", "sun.rmi.transport", "sun.rmi.transport.tcp")) {
            jvm.jvmArgs("--add-opens", "java.rmi/" + pkg + "=ALL-UNNAMED");
        }
        return jvm.classpathOf(SampleServer.class).classpathOf(PooledConnectionMain.class).main(PooledConnectionMain.class)
                .args("127.0.0.1", port, "20", "10").start();
    }
}
