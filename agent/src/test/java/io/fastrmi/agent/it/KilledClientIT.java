package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.agent.nativeit.EchoLoopClientMain;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client killed in the middle of a transfer costs only its own streams (issue 32): against one agent
 * server, clients echo arrays (1 MiB, then 2 KiB: large messages in many parts, small ones whole)
 * in a loop, {@value #VICTIMS} at once, and are killed with SIGKILL while they do, round after round;
 * after each kill a new client's echoes must all come back, and a client that was there before the
 * kills (echoing {@value #SURVIVOR_BYTES} bytes all along) must go on being answered. A server that a dead client wedged (a lock, a queue or a
 * window it held) fails here with the checker's calls unanswered. No time is asserted: the wait is
 * only a bound. {@value #TEST_ROUNDS} rounds per size in {@code make test};
 * {@code -Dfastrmi.kill.rounds=20} for the size, and {@code -Dfastrmi.kill.check.seconds=5} for
 * checkers that echo for that long (the reproduction) instead of {@value #CHECK_CALLS} times.
 */
class KilledClientIT {

    private static final int TEST_ROUNDS = 2;
    private static final int ROUNDS = Integer.getInteger("fastrmi.kill.rounds", TEST_ROUNDS);
    private static final int[] BYTES = {1024 * 1024, 2048};
    /** Clients echoing at once and killed together before a new one must be served, each at its own point of a call. */
    private static final int VICTIMS = 3;
    /** One transport only, for a larger run of one ({@code -Dfastrmi.kill.transport=ofi:shm}); all by default. */
    private static final String ONLY = System.getProperty("fastrmi.kill.transport");
    private static final int CHECK_CALLS = 20;
    private static final int CHECK_SECONDS = Integer.getInteger("fastrmi.kill.check.seconds", 0);
    private static final int SURVIVOR_BYTES = 2048;
    /** A bound for the checker's calls (20 echoes of 1 MiB take well under a second on a free machine). */
    private static final Duration CHECK_BOUND = Duration.ofSeconds(90);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ofi:shm", "ucx:shm", "ucx:tcp", "ofi:tcp;ofi_rxm"})
    void aClientKilledMidTransferDoesNotStopTheServer(String transport) throws Exception {
        assumeTrue(ONLY == null || ONLY.isEmpty() || ONLY.equals(transport), "only " + ONLY);
        Path dir = ItSupport.directory("killed-client-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Jdk jdk = Jdk.of(25);
        try (ManagedJvm server = ItSupport.agentSampleServer(jdk, config, Duration.ofMinutes(5 + ROUNDS))) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm survivor = client(jdk, config, port, "survivor", SURVIVOR_BYTES, -1, 0,
                    Duration.ofMinutes(5 + ROUNDS))) {
                survivor.awaitLine(Pattern.compile("^ECHOING$"), Duration.ofSeconds(60));
                Map<Integer, Checked> before = new HashMap<>();
                for (int bytes : BYTES) {
                    before.put(bytes, check(jdk, config, port, bytes, transport + ", before any kill, " + bytes + " bytes"));
                }
                try {
                    killRounds(jdk, config, port, transport, survivor, before);
                } catch (AssertionError e) {
                    Path stacks = dir.resolve("server-stacks.txt");
                    Files.writeString(stacks, server.stacks());
                    throw new AssertionError(e.getMessage() + "\n(the server's threads: " + stacks.toAbsolutePath() + ")", e);
                }
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), () -> String.join("\n", server.output()));
        }
    }

    private static void killRounds(Jdk jdk, Path config, String port, String transport, ManagedJvm survivor,
            Map<Integer, Checked> before) throws InterruptedException {
        Random random = new Random(transport.hashCode() + (long) ROUNDS);
        for (int round = 0; round < ROUNDS; round++) {
            for (int bytes : BYTES) {
                String what = transport + ", round " + (round + 1) + ", " + bytes + " bytes";
                List<ManagedJvm> victims = new ArrayList<>();
                try {
                    for (int v = 0; v < VICTIMS; v++) {
                        victims.add(client(jdk, config, port, "victim-" + v, bytes, -1));
                    }
                    for (ManagedJvm victim : victims) {
                        victim.awaitLine(Pattern.compile("^ECHOING$"), Duration.ofSeconds(60));
                    }
                    // In the middle of their transfers: they echo without a pause, warmed up (the
                    // issue's victims lived about 3.5 s), each at its own point of a call.
                    Thread.sleep(1500 + random.nextInt(2000));
                } finally {
                    victims.forEach(ManagedJvm::close); // SIGKILL
                }
                int seen = survivor.output().size();
                Checked after = check(jdk, config, port, bytes, what);
                awaitNewLine(survivor, Pattern.compile("^AT \\d+$"), seen, what + ": the client there before the kills");
                // Printed, not asserted (timing is never asserted): the closing note's "full speed".
                System.out.printf("%s: served after %d clients were killed mid-transfer: %s (before any kill: %s)%n",
                        what, VICTIMS, after, before.get(bytes));
            }
        }
    }

    /** Waits for a line after the first {@code seen} lines of {@code jvm} that {@code pattern} finds (a bound, not a timing). */
    private static void awaitNewLine(ManagedJvm jvm, Pattern pattern, int seen, String what) throws InterruptedException {
        long deadline = System.nanoTime() + CHECK_BOUND.toNanos();
        while (System.nanoTime() < deadline && jvm.isAlive()) {
            List<String> lines = jvm.output();
            for (int i = seen; i < lines.size(); i++) {
                if (pattern.matcher(lines.get(i)).find()) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError(what + " was not answered any more within " + CHECK_BOUND + ":\n"
                + String.join("\n", jvm.output()));
    }

    /**
     * A new client's {@value #CHECK_CALLS} echoes of {@code bytes} (or as many as it makes in
     * {@link #CHECK_SECONDS}) must all come back (within a bound: a wedged server never answers); what it made.
     */
    private static Checked check(Jdk jdk, Path config, String port, int bytes, String what) {
        boolean timed = CHECK_SECONDS > 0;
        try (ManagedJvm checker = client(jdk, config, port, "checker", bytes, timed ? -1 : CHECK_CALLS, CHECK_SECONDS,
                Duration.ofMinutes(3))) {
            long micros = Long.parseLong(checker.awaitLine(Pattern.compile("^MEAN_MICROS (\\d+)$"), CHECK_BOUND).group(1));
            long echoes = Long.parseLong(checker.awaitLine(Pattern.compile("^ECHOED (\\d+)$"), CHECK_BOUND).group(1));
            assertEquals(0, checker.awaitExit(Duration.ofSeconds(30)), () -> what + ": the checker failed:\n"
                    + String.join("\n", checker.output()));
            if (!timed) {
                assertEquals(CHECK_CALLS, echoes, what);
            }
            return new Checked(echoes, micros);
        } catch (IllegalStateException e) {
            throw new AssertionError(what + ": a new client's echoes did not all come back within " + CHECK_BOUND
                    + " (the server is wedged)", e);
        }
    }

    /** A checker's echoes, and the mean time of one after the first. */
    private record Checked(long echoes, long meanMicros) {
        @Override
        public String toString() {
            return echoes + " echoes, " + meanMicros + " µs each";
        }
    }

    private static ManagedJvm client(Jdk jdk, Path config, String port, String name, int bytes, int calls) {
        return client(jdk, config, port, name, bytes, calls, 0, Duration.ofMinutes(3));
    }

    private static ManagedJvm client(Jdk jdk, Path config, String port, String name, int bytes, int calls, int seconds,
            Duration life) {
        return JvmLauncher.on(jdk).name(name).agent(ItSupport.agentJar(), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1")
                .classpathOf(SampleServer.class).classpathOf(EchoLoopClientMain.class).main(EchoLoopClientMain.class)
                .args("127.0.0.1", port, Integer.toString(bytes), Integer.toString(calls), Integer.toString(seconds))
                .timeLimit(life).start();
    }
}
