package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.SharedConnectionMain;
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
 * A lean connection passes from call to call while the call before is still releasing its input
 * (RMI frees a connection once the reply's value is read, then registers the stubs it carried and
 * acknowledges them; after an exception from the server it never releases it): every call of four
 * threads is answered right and none waits forever, and every call was lean. Before the fix the call before ended the next call's message under it, and
 * the next call waited for bytes it had already been sent (seen in {@code MeshIT}).
 */
class SharedConnectionIT {

    private static final Pattern READY = Pattern.compile("^READY port=(\\d+)$");

    @ParameterizedTest(name = "JDK {0}, {1}")
    @CsvSource({"25, tcp", "25, " + ItSupport.FAST_TRANSPORT, "17, " + ItSupport.FAST_TRANSPORT})
    void callsThatShareConnectionsEachGetTheirOwnReply(int feature, String transport) throws Exception {
        Path dir = ItSupport.directory("shared-connection-" + feature + "-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Path serverJfr = dir.resolve("server.jfr");
        Jdk jdk = Jdk.of(feature);
        try (ManagedJvm server = launcher(jdk, "server", config).jfr(serverJfr).args("server").start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);
            List<String> output;
            try (ManagedJvm client = launcher(jdk, "client", config).args("client", port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("client exit code").getMessage());
                output = client.output();
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(60)));
            assertEquals(List.of(), output.stream().filter(l -> l.startsWith("WRONG") || l.startsWith("FAILED")).toList());
            int rounds = SharedConnectionMain.THREADS * SharedConnectionMain.ROUNDS;
            assertTrue(output.contains("ROUNDS " + rounds), () -> String.join("\n", output));
            Map<String, Integer> calls = new TreeMap<>();
            for (RecordedEvent event : ItSupport.calls(serverJfr)) {
                calls.merge(event.getString("method") + " lean=" + event.getBoolean("lean"), 1, Integer::sum);
            }
            assertEquals(rounds, calls.getOrDefault("make lean=true", 0), calls::toString);
            assertEquals(rounds, calls.getOrDefault("add lean=true", 0), calls::toString);
            assertEquals(rounds / 10, calls.getOrDefault("refuse lean=true", 0), calls::toString);
            assertTrue(calls.getOrDefault("dirty lean=true", 0) >= rounds, calls::toString); // the DGC's calls between
        }
    }

    private static JvmLauncher launcher(Jdk jdk, String name, Path config) {
        return ItSupport.underAgent(JvmLauncher.on(jdk).name(name), config).classpathOf(SharedConnectionMain.class)
                .main(SharedConnectionMain.class);
    }
}
