package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.agent.nativeit.EchoLoopClientMain;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client killed in the middle of a transfer costs only its own streams (issue 32): against one agent
 * server, clients echo arrays (1 MiB, then 2 KiB: large messages in many parts, small ones whole)
 * in a loop, {@value #VICTIMS} at once, and are killed with SIGKILL while they do, round after round;
 * after each kill a new client's echoes must all come back. A server that a dead client wedged (a lock, a queue or a
 * window it held) fails here with the checker's calls unanswered. No time is asserted: the wait is
 * only a bound. {@value #TEST_ROUNDS} rounds per size in {@code make test};
 * {@code -Dfastrmi.kill.rounds=20} for the size.
 */
class KilledClientIT {

    private static final int TEST_ROUNDS = 2;
    private static final int ROUNDS = Integer.getInteger("fastrmi.kill.rounds", TEST_ROUNDS);
    private static final int[] BYTES = {1024 * 1024, 2048};
    /** Clients echoing at once and killed together before a new one must be served, each at its own point of a call. */
    private static final int VICTIMS = 3;
    /**
     * Why {@code ucx:shm} runs only when asked ({@code -Dfastrmi.kill.transport=ucx:shm}): it still fails
     * now and then (a wedged server after 3 to about 50 kills of clients echoing 1 MiB, here). UCX's shared-memory transports (mm: posix, sysv) carry
     * every peer's messages to a worker in one FIFO that the worker reads in order; a sender reserves
     * an element, writes it, then marks it written. A client killed between the two leaves an element
     * that is never marked, and the server's worker then reads nothing more from anyone: new clients'
     * first bytes never arrive (seen: both ends waiting to read after the client's JRMP header was
     * sent). The fix is not in this test's reach yet (a worker per peer, or retiring a context whose
     * peer died while sending); see issue 32.
     */
    static final String UCX_SHM_OPEN = "ucx:shm: a client killed while it writes into the server's UCX FIFO "
            + "still wedges the server's worker (UCX mm FIFO, issue 32); run with -Dfastrmi.kill.transport=ucx:shm";
    /** One transport only, for a larger run of one ({@code -Dfastrmi.kill.transport=ofi:shm}); all by default. */
    private static final String ONLY = System.getProperty("fastrmi.kill.transport");
    private static final int CHECK_CALLS = 20;
    /** A bound for the checker's calls (20 echoes of 1 MiB take well under a second on a free machine). */
    private static final Duration CHECK_BOUND = Duration.ofSeconds(90);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ofi:shm", "ucx:shm", "ucx:tcp", "ofi:tcp;ofi_rxm"})
    void aClientKilledMidTransferDoesNotStopTheServer(String transport) throws Exception {
        assumeTrue(ONLY == null || ONLY.isEmpty() || ONLY.equals(transport), "only " + ONLY);
        assumeTrue(!transport.equals("ucx:shm") || transport.equals(ONLY), UCX_SHM_OPEN);
        Path dir = ItSupport.directory("killed-client-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Jdk jdk = Jdk.of(25);
        Random random = new Random(transport.hashCode() + (long) ROUNDS);
        try (ManagedJvm server = ItSupport.agentSampleServer(jdk, config, Duration.ofMinutes(5 + ROUNDS))) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
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
                    try (ManagedJvm checker = client(jdk, config, port, "checker", bytes, CHECK_CALLS)) {
                        checker.awaitLine(Pattern.compile("^ECHOED " + CHECK_CALLS + "$"), CHECK_BOUND);
                        assertEquals(0, checker.awaitExit(Duration.ofSeconds(30)), () -> what + ": the checker failed:\n"
                                + String.join("\n", checker.output()));
                    } catch (IllegalStateException e) {
                        throw new AssertionError(what + ": after " + VICTIMS + " clients were killed in the middle of a transfer, a new "
                                + "client's " + CHECK_CALLS + " echoes did not all come back within " + CHECK_BOUND
                                + " (the server is wedged)", e);
                    }
                    System.out.println(what + ": served after " + VICTIMS + " clients were killed mid-transfer");
                }
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), () -> String.join("\n", server.output()));
        }
    }

    private static ManagedJvm client(Jdk jdk, Path config, String port, String name, int bytes, int calls) {
        return JvmLauncher.on(jdk).name(name).agent(ItSupport.agentJar(), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1")
                .classpathOf(SampleServer.class).classpathOf(EchoLoopClientMain.class).main(EchoLoopClientMain.class)
                .args("127.0.0.1", port, Integer.toString(bytes), Integer.toString(calls))
                .timeLimit(Duration.ofMinutes(3)).start();
    }
}
