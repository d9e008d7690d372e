package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.ChurnClientMain;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/**
 * A long-running server over {@code ofi:shm} with client churn: one client JVM after another comes,
 * calls once and exits, more of them than one ofi:shm context could reach in its life. Each client
 * process gets a context of its own (a dead peer's lock must stop only its own, issue 32), which is
 * closed a grace after its last connection (its doorbell file goes), so every client gets a fast
 * connection on ofi:shm and the right answer, and at the end only the last client's context and the
 * spare are open. (The limit of peers per context, {@code FASTRMI_OFI_SHM_PEERS}, lowered to
 * {@value #TEST_PEERS} here, still holds for a context shared by many peers, which ofi:shm no longer
 * makes.) {@value #TEST_CLIENTS} clients in {@code make test}; {@code make churn} runs
 * {@code -Dfastrmi.churn.clients=1000 -Dfastrmi.churn.peers=0}.
 */
class ShmChurnIT {

    private static final int TEST_PEERS = 18;
    private static final int TEST_CLIENTS = 20;
    private static final int CLIENTS = Integer.getInteger("fastrmi.churn.clients", TEST_CLIENTS);
    private static final int PEERS = Integer.getInteger("fastrmi.churn.peers", TEST_PEERS);
    /** Clients at once: the machine's cores, at most 4. */
    private static final int PARALLEL = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    /** A short handshake limit makes a retired context's grace (twice that) short enough to see it closed. */
    private static final int HANDSHAKE_MILLIS = 1000;

    @Test
    void everyClientOfALongLivedServerGetsOfiShm() throws Exception {
        Path dir = ItSupport.directory("shm-churn");
        Path config = ItSupport.transportConfig(dir, "ofi:shm");
        Path serverJfr = dir.resolve("server.jfr");
        Jdk jdk = Jdk.of(25);
        JvmLauncher serverLauncher = JvmLauncher.on(jdk).name("server").agent(ItSupport.agentJar(), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED",
                        "-Dsun.rmi.transport.tcp.handshakeTimeout=" + HANDSHAKE_MILLIS)
                .jfr(serverJfr).classpathOf(SampleServer.class).main(SampleServer.class)
                .timeLimit(Duration.ofMinutes(5 + CLIENTS / 20));
        if (PEERS > 0) {
            serverLauncher.env("FASTRMI_OFI_SHM_PEERS", Integer.toString(PEERS));
        }
        Set<String> bellsSeen = new TreeSet<>();
        int handshakes;
        try (ManagedJvm server = serverLauncher.start()) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            for (int first = 0; first < CLIENTS; first += PARALLEL) {
                List<ManagedJvm> batch = new ArrayList<>();
                for (int n = first; n < Math.min(CLIENTS, first + PARALLEL); n++) {
                    batch.add(client(jdk, config, port, n));
                }
                for (int i = 0; i < batch.size(); i++) {
                    int n = first + i;
                    try (ManagedJvm client = batch.get(i)) {
                        client.awaitLine(Pattern.compile("^ANSWER " + (n + 1) + "$"), Duration.ofSeconds(60));
                        assertEquals(0, client.awaitExit(Duration.ofSeconds(30)), () -> String.join("\n", client.output()));
                    }
                }
                bellsSeen.addAll(doorbells(server.pid()));
                if (first / PARALLEL % 50 == 0) {
                    System.out.println("churn: " + Math.min(CLIENTS, first + PARALLEL) + " clients, server doorbells now "
                            + doorbells(server.pid()));
                }
            }
            // After the grace, the departed clients' contexts are closed.
            Thread.sleep(3L * HANDSHAKE_MILLIS);
            try (ManagedJvm last = client(jdk, config, port, CLIENTS)) {
                last.awaitLine(Pattern.compile("^ANSWER " + (CLIENTS + 1) + "$"), Duration.ofSeconds(60));
                assertEquals(0, last.awaitExit(Duration.ofSeconds(30)));
            }
            List<String> open = doorbells(server.pid());
            bellsSeen.addAll(open);
            int contextsNeeded = 1 + CLIENTS / (effectivePeers() - 16);
            System.out.println("churn: " + (CLIENTS + 1) + " clients; the server opened " + bellsSeen.size()
                    + " ofi:shm contexts, " + open.size() + " open at the end: " + open);
            assertTrue(bellsSeen.size() >= contextsNeeded, "the server should have opened at least " + contextsNeeded
                    + " contexts, saw " + bellsSeen);
            // The last client's context (within its grace) and the spare.
            assertTrue(open.size() <= 2 && bellsSeen.size() >= 3, "departed clients' contexts should be closed: "
                    + open + " open of " + bellsSeen);
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), () -> String.join("\n", server.output()));
            List<String> output = server.output();
            assertTrue(output.stream().noneMatch(l -> l.contains("Exception") || l.contains("cannot")),
                    () -> String.join("\n", output));
        }
        handshakes = 0;
        for (RecordedEvent event : ItSupport.negotiations(serverJfr)) {
            assertEquals("fast", event.getString("result"), event::toString);
            assertEquals("ofi:shm", event.getString("transport"), event::toString);
            handshakes++;
        }
        assertTrue(handshakes >= CLIENTS + 1, "a fast handshake per client at least, got " + handshakes);
    }

    private static int effectivePeers() {
        return PEERS > 0 ? PEERS : 256;
    }

    private static ManagedJvm client(Jdk jdk, Path config, String port, int n) {
        return JvmLauncher.on(jdk).name("client-" + n).agent(ItSupport.agentJar(), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1")
                .classpathOf(SampleServer.class).classpathOf(ChurnClientMain.class).main(ChurnClientMain.class)
                .args("127.0.0.1", port, Integer.toString(n)).timeLimit(Duration.ofMinutes(2)).start();
    }

    /** The server's ofi:shm doorbells (one per open context): bell-nsNS-PID-N in the user's folders under /dev/shm. */
    private static List<String> doorbells(long pid) throws IOException {
        List<String> bells = new ArrayList<>();
        try (Stream<Path> folders = Files.list(Path.of("/dev/shm"))) {
            for (Path folder : folders.filter(p -> p.getFileName().toString().startsWith("fastrmi-")
                    && Files.isDirectory(p)).toList()) {
                try (Stream<Path> files = Files.list(folder)) {
                    files.map(p -> p.getFileName().toString()).filter(f -> f.matches("bell-ns[0-9]+-" + pid + "-.*"))
                            .forEach(bells::add);
                }
            }
        }
        bells.sort(null);
        return bells;
    }
}
