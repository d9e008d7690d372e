package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.DgcConnectionMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A stub's endpoint that a JVM has not called gets its DGC call on a plain single-call connection,
 * not a fast one (whose contexts at both ends would serve that one call): the client's lease is
 * granted on it, and the application's calls that follow get a fast connection of their own, lean.
 * The registry, called first, is fast. Both sides record the single-call connection as such.
 */
class DgcConnectionIT {

    private static final Pattern READY = Pattern.compile("^READY port=(\\d+)$");
    private static final int CALLS = 20;

    @ParameterizedTest(name = "JDK {0}, {1}")
    @CsvSource({"25, " + ItSupport.FAST_TRANSPORT, "25, tcp", "17, " + ItSupport.FAST_TRANSPORT})
    void aDgcCallToAnEndpointNotYetCalledGoesOnASingleCallConnection(int feature, String transport) throws Exception {
        Path dir = ItSupport.directory("dgc-connection-" + feature + "-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Path serverJfr = dir.resolve("server.jfr");
        Path clientJfr = dir.resolve("client.jfr");
        Jdk jdk = Jdk.of(feature);
        try (ManagedJvm server = launcher(jdk, "server", config).jfr(serverJfr).args("server").start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);
            List<String> output;
            try (ManagedJvm client = launcher(jdk, "client", config).jfr(clientJfr).args("client", port, "" + CALLS).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("client exit code").getMessage());
                output = client.output();
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(60)));
            assertTrue(output.contains("CALLS " + CALLS) && output.stream().noneMatch(l -> l.startsWith("WRONG")),
                    () -> String.join("\n", output));

            // The registry's connection, DGC's single-call one, the application's: on each side.
            Map<String, Integer> expected = Map.of("fast " + transport, 2, "plain single call", 1);
            assertEquals(expected, handshakes(clientJfr, "client"));
            assertEquals(expected, handshakes(serverJfr, "server"));

            Map<String, Integer> calls = new TreeMap<>();
            for (RecordedEvent event : ItSupport.events(clientJfr, "fastrmi.RmiCall")) {
                calls.merge(event.getString("method") + " lean=" + event.getBoolean("lean"), 1, Integer::sum);
            }
            assertEquals(1, calls.getOrDefault("dirty lean=false", 0), calls::toString);
            assertEquals(0, calls.getOrDefault("dirty lean=true", 0), calls::toString);
            assertEquals(CALLS, calls.getOrDefault("twice lean=true", 0), calls::toString);
        }
    }

    private static Map<String, Integer> handshakes(Path recording, String side) throws Exception {
        Map<String, Integer> results = new TreeMap<>();
        for (RecordedEvent event : ItSupport.events(recording, "fastrmi.Handshake")) {
            assertEquals(side, event.getString("side"));
            String result = event.getString("result");
            String key = ItSupport.isDgcSingleCall(event) ? "plain single call"
                    : result + " " + (result.equals("fast") ? event.getString("transport") : event.getString("reason"));
            results.merge(key, 1, Integer::sum);
        }
        return results;
    }

    private static JvmLauncher launcher(Jdk jdk, String name, Path config) {
        return ItSupport.underAgent(JvmLauncher.on(jdk).name(name), config).classpathOf(DgcConnectionMain.class)
                .main(DgcConnectionMain.class);
    }
}
