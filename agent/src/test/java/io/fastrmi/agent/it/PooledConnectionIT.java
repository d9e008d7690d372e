package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * has been idle longer than the last ping's round trip (a call after think time always). A native
 * connection is reused without that round trip: it knows its peer's close and death from its
 * control channel. A connection whose server died is still not reused: the next call fails as
 * stock RMI's does, with {@code java.rmi.ConnectException} (its new connection refused).
 */
class PooledConnectionIT {

    private static final Pattern ROUNDTRIPS = Pattern.compile("^ROUNDTRIPS \\[(.*)]$");
    /** {@code TCPConnection.roundtrip} before RMI first pings: a measured one is a whole even number of ms. */
    private static final String NEVER_PINGED = "5";

    @ParameterizedTest(name = "JDK {0}, {1}")
    @CsvSource({"25, ucx:shm", "25, ofi:shm", "25, tcp", "17, ucx:shm"})
    void callsAfterThinkTimeReuseANativeConnectionWithoutAPing(int feature, String transport) throws Exception {
        Path dir = ItSupport.directory("pooled-connection-" + feature + "-" + transport.replace(':', '-'));
        Path config = ItSupport.transportConfig(dir, transport);
        Jdk jdk = Jdk.of(feature);
        try (ManagedJvm server = ItSupport.agentSampleServer(jdk, config)) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = client(jdk, config, port)) {
                List<String> roundTrips = Arrays.asList(client.awaitLine(ROUNDTRIPS, Duration.ofSeconds(60)).group(1).split(", "));
                System.out.println(transport + ": pooled connections' ping round trips " + roundTrips);
                assertFalse(roundTrips.isEmpty() || roundTrips.get(0).isEmpty(), "no pooled connection");
                if (transport.equals("tcp")) {
                    // The agent's tcp is a plain socket: RMI pings it, as stock's. This shows the field tells.
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

    private static Matcher answer(ManagedJvm client, int n) {
        return client.awaitLine(Pattern.compile("^ANSWER " + n + " (OK|FAILED [^:]+)"), Duration.ofSeconds(30));
    }

    private static ManagedJvm client(Jdk jdk, Path config, String port) {
        JvmLauncher jvm = ItSupport.underAgent(JvmLauncher.on(jdk).name("client"), config);
        for (String pkg : List.of("java.rmi.server", "sun.rmi.server", "sun.rmi.transport", "sun.rmi.transport.tcp")) {
            jvm.jvmArgs("--add-opens", "java.rmi/" + pkg + "=ALL-UNNAMED");
        }
        return jvm.classpathOf(SampleServer.class).classpathOf(PooledConnectionMain.class).main(PooledConnectionMain.class)
                .args("127.0.0.1", port, "20", "10").start();
    }
}
