package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.AddressFuzzMain;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import io.fastrmi.testkit.NativeAddressBytes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzzed native addresses in well-formed offers and answers ({@link AddressFuzzMain}), against real
 * agent JVMs with every native transport in their config: each offer ends in an answer or a closed
 * connection, never a hang; each RMI call answered with a fuzzed address fails with a
 * RemoteException; both JVMs survive, and the server still serves. {@code -Dfastrmi.fuzz.count=N}
 * sets how many of each (5,000 in {@code make test}; {@code make fuzz} runs 500,000 of each), and
 * {@code -Dfastrmi.fuzz.seed=S} repeats a run (the seed is printed). {@code -Dfastrmi.fuzz.lanes=L}
 * splits them over L fuzzers at once (seeds S, S+1, ...) against the one server, and L answer
 * clients (2 in {@code make test}): a fuzzer mostly waits, so a full-size run goes L times faster.
 */
class AddressFuzzIT {

    private static final int COUNT = Integer.getInteger("fastrmi.fuzz.count", 5_000);
    private static final long SEED = Long.getLong("fastrmi.fuzz.seed", System.nanoTime());
    private static final int LANES = Math.max(1, Integer.getInteger("fastrmi.fuzz.lanes", 2));
    private static final String TRANSPORTS = "ofi:shm, ucx:shm, ofi:tcp;ofi_rxm, ucx:tcp, tcp";
    /** How long a fuzz may run: about 100 answers a second here, more offers. */
    private static final Duration LIMIT = Duration.ofSeconds(120 + COUNT / LANES / 20);

    /** The agent's JVMs on JDK 25 through FFM and JNI, and on 17 (JNI). */
    static List<Arguments> bindings() {
        return List.of(Arguments.of(25, "ffm"), Arguments.of(25, "jni"), Arguments.of(17, "jni"));
    }

    /** The fuzzers, of the server's JDK (a fingerprint of another JDK is refused before any address), carry no agent. */
    @ParameterizedTest(name = "agent on JDK {0} through {1}")
    @MethodSource("bindings")
    void fuzzedOfferAddressesEndCleanlyAndTheServerSurvives(int feature, String binding) throws Exception {
        Path dir = ItSupport.directory("fuzz-offers-" + feature + "-" + binding);
        Path config = config(dir, binding);
        Path agent = ItSupport.agentJar();
        Jdk jdk = Jdk.of(feature);
        try (ManagedJvm server = ItSupport.agentSampleServer(jdk, config, LIMIT)) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            List<ManagedJvm> fuzzers = new ArrayList<>();
            try {
                for (int lane = 0; lane < LANES; lane++) {
                    fuzzers.add(JvmLauncher.on(jdk).name("fuzzer-" + lane).classpathOf(AddressFuzzMain.class)
                            .classpathOf(NativeAddressBytes.class).classpathOf(Handshake.class).classpathOf(JvmFingerprint.class)
                            .main(AddressFuzzMain.class).timeLimit(LIMIT)
                            .args("offers", "127.0.0.1", port, String.valueOf(share(lane)), String.valueOf(SEED + lane)).start());
                }
                for (int lane = 0; lane < LANES; lane++) {
                    Matcher summary = fuzzers.get(lane).awaitLine(
                            Pattern.compile("^OFFERS (\\d+) accepted=(\\d+) closed=(\\d+) hung=(\\d+) refused=(\\d+)$"), LIMIT);
                    System.out.println("seed " + (SEED + lane) + ": " + summary.group(0));
                    assertEquals("0", summary.group(4), "offers that got no end within 10 s: " + summary.group(0));
                    // Mutated addresses are mostly wrong: most are refused, which shows they were looked at
                    assertTrue(Integer.parseInt(summary.group(3)) + Integer.parseInt(summary.group(5)) > share(lane) / 2, summary.group(0));
                }
            } finally {
                fuzzers.forEach(ManagedJvm::close);
            }
            assertTrue(server.isAlive(), () -> "the server died:\n" + String.join("\n", server.output()));
            try (ManagedJvm client = JvmLauncher.on(jdk).name("client").agent(agent, "config=" + config)
                    .jvmArgs("--enable-native-access=ALL-UNNAMED").classpathOf(SampleClient.class).main(SampleClient.class)
                    .args("127.0.0.1", port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("a client after the fuzz").getMessage());
                assertEquals(SampleAppIT.expectedTranscript(), client.output().stream().filter(l -> l.startsWith("CALL ")).toList());
            }
        }
    }

    @ParameterizedTest(name = "agent on JDK {0} through {1}")
    @MethodSource("bindings")
    void fuzzedAnswerAddressesFailTheCallAndTheClientSurvives(int feature, String binding) throws Exception {
        Path dir = ItSupport.directory("fuzz-answers-" + feature + "-" + binding);
        List<ManagedJvm> clients = new ArrayList<>();
        try {
            for (int lane = 0; lane < LANES; lane++) {
                clients.add(JvmLauncher.on(Jdk.of(feature)).name("client-" + lane).agent(ItSupport.agentJar(), "config=" + config(dir, binding))
                        .jvmArgs("--enable-native-access=ALL-UNNAMED", "-Dsun.rmi.transport.tcp.handshakeTimeout=2000")
                        .classpathOf(AddressFuzzMain.class).classpathOf(NativeAddressBytes.class).main(AddressFuzzMain.class).timeLimit(LIMIT)
                        .args("answers", String.valueOf(share(lane)), String.valueOf(SEED + lane)).start());
            }
            for (int lane = 0; lane < LANES; lane++) {
                ManagedJvm client = clients.get(lane);
                Matcher summary = client.awaitLine(Pattern.compile("^ANSWERS (\\d+) other=(\\d+) remote-exceptions=(\\d+)$"),
                        LIMIT);
                System.out.println("seed " + (SEED + lane) + ": " + summary.group(0));
                assertEquals("0", summary.group(2), () -> String.join("\n", client.output()));
                assertEquals(String.valueOf(share(lane)), summary.group(3));
                assertEquals(0, client.awaitExit(Duration.ofSeconds(60)));
            }
        } finally {
            clients.forEach(ManagedJvm::close);
        }
    }

    /** A lane's part of the count (the first lanes take the remainder). */
    private static int share(int lane) {
        return COUNT / LANES + (lane < COUNT % LANES ? 1 : 0);
    }

    private static Path config(Path dir, String binding) throws Exception {
        Path config = dir.resolve("fastrmi.conf");
        Files.write(config, List.of("binding = " + binding, "[host local]", "optimize = on", "transports = " + TRANSPORTS));
        return config;
    }
}
