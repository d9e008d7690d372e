package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * JVMs in separate pid namespaces that share {@code /dev/shm} and the network namespace (containers of
 * one pod can be set up so; here {@code unshare --pid}, as root), issue 38:
 * <ul>
 * <li>a client in another pid namespace runs on tcp (a pid means one process only within one
 * namespace, and shared memory is reached by pid), and its JVM removes none of the server's files:
 * a client of the server's own namespace still gets shared memory after it;
 * <li>a JVM whose pid a killed one had (pid 1 of a fresh namespace each time, as in containers) meets
 * none of the killed one's files, and gets shared memory with a client of its namespace.
 * </ul>
 */
class PidNamespaceIT {

    private static final Path USER_FOLDER = Path.of("/dev/shm/fastrmi-0");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:shm"})
    void aClientInAnotherPidNamespaceRunsOnTcpAndLeavesTheServersFilesAlone(String transport) throws Exception {
        Setup setup = Setup.asRoot("pid-ns-", transport);
        Path namespacedJfr = setup.dir().resolve("namespaced-client.jfr");
        UnaryOperator<JvmLauncher> withAgent = jvm -> ItSupport.underAgent(jvm, setup.config());
        SampleRun run = SampleRun.run(setup.jdk(), setup.jdk(), setup.dir(), withAgent, withAgent, server -> {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm namespaced = withAgent.apply(JvmLauncher.on(setup.jdk()).name("namespaced-client"))
                    .wrapper("unshare", "--pid", "--kill-child").jfr(namespacedJfr).classpathOf(SampleClient.class)
                    .main(SampleClient.class).args("127.0.0.1", port).start()) {
                assertEquals(0, namespaced.awaitExit(Duration.ofMinutes(2)), () -> namespaced.failure("exit code").getMessage());
                assertTranscript(namespaced.output());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });

        for (RecordedEvent event : clientHandshakes(namespacedJfr)) {
            assertEquals("tcp", event.getString("transport"), () -> "another pid namespace: " + event);
        }
        // The client of the server's own namespace came after: the server's files were all still there.
        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        List<RecordedEvent> after = clientHandshakes(run.clientJfr());
        assertFalse(after.isEmpty());
        for (RecordedEvent event : after) {
            assertEquals(transport, event.getString("transport"), () -> "the server's own namespace: " + event);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:shm"})
    void aJvmWithTheReusedPidOfAKilledOneGetsSharedMemory(String transport) throws Exception {
        Setup setup = Setup.asRoot("pid-reused-", transport);
        long killedPid;
        try (ManagedJvm killed = containerServer(setup.jdk(), setup.config(), "killed-server")) {
            String port = killed.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            // The server's contexts, and so its files, open at the first offer.
            runClientBeside(killed, setup.jdk(), setup.config(), port, setup.dir().resolve("first-client.jfr"));
            killedPid = inNamespacePid(killed);
            assertFalse(filesOf(killedPid).isEmpty(), "the killed server's files are there to meet");
        } // SIGKILL: its files stay
        List<String> left = filesOf(killedPid);
        assertFalse(left.isEmpty(), "a JVM killed with SIGKILL leaves its files");

        Path clientJfr = setup.dir().resolve("client.jfr");
        try (ManagedJvm server = containerServer(setup.jdk(), setup.config(), "server")) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            assertEquals(killedPid, inNamespacePid(server), "the same pid as the killed server");
            runClientBeside(server, setup.jdk(), setup.config(), port, clientJfr);
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(60)), () -> String.join("\n", server.output()));
            assertTrue(server.output().stream().noneMatch(l -> l.contains("is not available")),
                    () -> String.join("\n", server.output()));
        }
        List<RecordedEvent> handshakes = clientHandshakes(clientJfr);
        assertFalse(handshakes.isEmpty());
        for (RecordedEvent event : handshakes) {
            assertEquals(transport, event.getString("transport"), event::toString);
        }
    }

    /** The sample client in the pid and mount namespaces of the server {@code unshare} started, run to its end. */
    private static void runClientBeside(ManagedJvm unshare, Jdk jdk, Path config, String port, Path jfr) throws Exception {
        try (ManagedJvm client = ItSupport.underAgent(JvmLauncher.on(jdk).name("client"), config)
                .wrapper("nsenter", "--target", Long.toString(namespacedJava(unshare)), "--pid", "--mount")
                .jfr(jfr).classpathOf(SampleClient.class).main(SampleClient.class).args("127.0.0.1", port).start()) {
            assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("exit code").getMessage());
            assertTranscript(client.output());
        }
    }

    /** A test's folder, config ({@code transport} first) and JDK; the tests run only as root (unshare, nsenter). */
    private record Setup(Path dir, Path config, Jdk jdk) {
        static Setup asRoot(String name, String transport) throws IOException {
            assumeTrue("root".equals(System.getProperty("user.name")), "needs root for pid namespaces (unshare)");
            Path dir = ItSupport.directory(name + transport);
            return new Setup(dir, ItSupport.transportConfig(dir, transport), Jdk.of(25));
        }
    }

    /** The sample server as pid 1 of a fresh pid namespace with its own /proc, as in a container. */
    private static ManagedJvm containerServer(Jdk jdk, Path config, String name) {
        return ItSupport.underAgent(JvmLauncher.on(jdk).name(name), config)
                .wrapper("unshare", "--pid", "--mount-proc", "--kill-child")
                .classpathOf(SampleServer.class).main(SampleServer.class).timeLimit(Duration.ofMinutes(3)).start();
    }

    /** The host pid of the JVM that {@code unshare} started. */
    private static long namespacedJava(ManagedJvm unshare) {
        return ProcessHandle.of(unshare.pid()).orElseThrow().children().findFirst().orElseThrow().pid();
    }

    /** The JVM's pid in its own namespace (the last field of NSpid in its status). */
    private static long inNamespacePid(ManagedJvm unshare) throws IOException {
        String nspid = Files.readAllLines(Path.of("/proc", Long.toString(namespacedJava(unshare)), "status")).stream()
                .filter(l -> l.startsWith("NSpid:")).findFirst().orElseThrow();
        String[] fields = nspid.trim().split("\\s+");
        return Long.parseLong(fields[fields.length - 1]);
    }

    /** This user's files of processes of pid {@code pid} (in any pid namespace). */
    private static List<String> filesOf(long pid) throws IOException {
        try (Stream<Path> files = Files.list(USER_FOLDER)) {
            return files.map(p -> p.getFileName().toString()).filter(f -> f.matches("[a-z]+-ns[0-9]+-" + pid + "-.*"))
                    .collect(Collectors.toList());
        }
    }

    private static void assertTranscript(List<String> output) throws Exception {
        assertEquals(SampleAppIT.expectedTranscript(),
                output.stream().filter(l -> l.startsWith("CALL ")).collect(Collectors.toList()), () -> String.join("\n", output));
    }

    /** The client's own negotiations (not the server's callbacks to it), each of which must have succeeded. */
    private static List<RecordedEvent> clientHandshakes(Path jfr) throws IOException {
        List<RecordedEvent> events = ItSupport.negotiations(jfr).stream()
                .filter(e -> "client".equals(e.getString("side"))).collect(Collectors.toList());
        for (RecordedEvent event : events) {
            assertEquals("fast", event.getString("result"), event::toString);
        }
        return events;
    }
}
