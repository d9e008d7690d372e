package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.agent.nativeit.EchoLoopClientMain;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A departed client costs the server nothing it keeps (issue 32): one agent server, many short-lived
 * client JVMs in waves (each makes its calls over a native shared-memory transport, then exits), and
 * afterwards the server's descriptors, its files in the user's folder under {@code /dev/shm}, its
 * mappings of {@code /dev/shm} files (deleted ones included), its threads and the host's shared memory
 * ({@code Shmem} in {@code /proc/meminfo}: what departed clients' regions would hold) are back within a
 * few of where they were after the first wave (issue 38 for the last). {@value #TEST_CLIENTS} clients per transport in
 * {@code make test}; {@code -Dfastrmi.churn.resources.clients=300} for the size.
 */
class ClientChurnResourcesIT {

    private static final int TEST_CLIENTS = 24;
    private static final int CLIENTS = Integer.getInteger("fastrmi.churn.resources.clients", TEST_CLIENTS);
    /** Clients at once: twice the machine's cores, at most 8. */
    private static final int PARALLEL = Math.max(2, Math.min(8, 2 * Runtime.getRuntime().availableProcessors()));
    private static final int CALLS = 20;
    /** Small and large arguments by turns (large ones go in many messages). */
    private static final int[] BYTES = {2048, 300 * 1024};
    /** What may differ from the start: a JVM opens and closes a few descriptors and threads of its own. */
    private static final int FD_SLACK = 6;
    private static final int FILE_SLACK = 1;
    private static final int MAPPING_SLACK = 2;
    private static final int THREAD_SLACK = 4;
    /** The host's shared memory may differ by what other processes of the machine do meanwhile. */
    private static final long SHMEM_SLACK_KB = 16 * 1024;
    private static final int HANDSHAKE_MILLIS = 2000;
    /** One transport only, for a run at the size ({@code -Dfastrmi.churn.resources.transport=ofi:shm}). */
    private static final String ONLY = System.getProperty("fastrmi.churn.resources.transport");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:shm"})
    void aDepartedClientLeavesNothingOnTheServer(String transport) throws Exception {
        assumeTrue(ONLY == null || ONLY.isEmpty() || ONLY.equals(transport), "only " + ONLY);
        Path dir = ItSupport.directory("churn-resources-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Jdk jdk = Jdk.of(25);
        // RMI's own idle connection threads end after a second, not a minute: what stays is ours. A short
        // handshake limit makes the grace of a spent ofi:shm context (twice that) short enough to see it closed.
        try (ManagedJvm server = JvmLauncher.on(jdk).name("server").agent(ItSupport.agentJar(), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED", "-Dsun.rmi.transport.tcp.threadKeepAliveTime=1000",
                        "-Dsun.rmi.transport.tcp.handshakeTimeout=" + HANDSHAKE_MILLIS)
                .classpathOf(SampleServer.class).main(SampleServer.class)
                .timeLimit(Duration.ofMinutes(10 + CLIENTS / 10)).start()) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            // The first wave opens what the server keeps for its life (its contexts and their files).
            wave(jdk, config, port, 0, PARALLEL);
            Resources start = settled(server.pid(), null);
            System.out.println(transport + ": after the first " + PARALLEL + " clients: " + start);
            int clients = PARALLEL;
            while (clients < PARALLEL + CLIENTS) {
                wave(jdk, config, port, clients, PARALLEL);
                clients += PARALLEL;
                if (clients / PARALLEL % 10 == 0) {
                    System.out.println(transport + ": " + clients + " clients: " + Resources.of(server.pid()));
                }
            }
            Resources end = settled(server.pid(), start);
            System.out.println(transport + ": after " + clients + " clients: " + end);
            String report = transport + ", " + clients + " clients: from " + start + " to " + end;
            assertTrue(end.fds <= start.fds + FD_SLACK, "descriptors: " + report + "\n" + end.fdNames);
            assertTrue(end.files <= start.files + FILE_SLACK, "files in the user's folder: " + report + "\n" + end.fileNames);
            assertTrue(end.mappings <= start.mappings + MAPPING_SLACK, "/dev/shm mappings: " + report + "\n" + end.mappingNames);
            assertTrue(end.threads <= start.threads + THREAD_SLACK, "threads: " + report);
            assertTrue(end.shmemKb <= start.shmemKb + SHMEM_SLACK_KB, "the host's shared memory: " + report);
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), () -> String.join("\n", server.output()));
        }
    }

    /** Clients first .. first + n - 1, at once; each must make its calls and exit normally. */
    private static void wave(Jdk jdk, Path config, String port, int first, int n) {
        List<ManagedJvm> clients = new ArrayList<>();
        try {
            for (int i = first; i < first + n; i++) {
                clients.add(JvmLauncher.on(jdk).name("client-" + i).agent(ItSupport.agentJar(), "config=" + config)
                        .jvmArgs("--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1")
                        .classpathOf(SampleServer.class).classpathOf(EchoLoopClientMain.class).main(EchoLoopClientMain.class)
                        .args("127.0.0.1", port, Integer.toString(BYTES[i % BYTES.length]), Integer.toString(CALLS))
                        .timeLimit(Duration.ofMinutes(2)).start());
            }
            for (ManagedJvm client : clients) {
                client.awaitLine(Pattern.compile("^ECHOED " + CALLS + "$"), Duration.ofSeconds(90));
                assertEquals(0, client.awaitExit(Duration.ofSeconds(30)), () -> String.join("\n", client.output()));
            }
        } finally {
            clients.forEach(ManagedJvm::close);
        }
    }

    /**
     * The server's resources once its connections to the departed clients are closed (RMI's side of a
     * connection whose peer died, or closed, ends at its next read; the watcher of the control channel
     * sees the end at once) and spent contexts are closed (a grace after they went idle): with no
     * {@code start}, once they stayed the same for 10 s; else as soon as they are back to {@code start},
     * or what they are after 45 s.
     */
    private static Resources settled(long pid, Resources start) throws Exception {
        Resources now = Resources.of(pid);
        long deadline = System.nanoTime() + Duration.ofSeconds(start == null ? 30 : 45).toNanos();
        int steady = 0;
        while (System.nanoTime() < deadline && (start != null || steady < 20)) {
            Thread.sleep(500);
            Resources next = Resources.of(pid);
            if (start != null && next.fds <= start.fds && next.files <= start.files && next.mappings <= start.mappings
                    && next.threads <= start.threads && next.shmemKb <= start.shmemKb + SHMEM_SLACK_KB) {
                return next;
            }
            steady = next.equalsInCounts(now) ? steady + 1 : 0;
            now = next;
        }
        return now;
    }

    /** What a process holds that a connection could leave behind. */
    private record Resources(int fds, int files, int mappings, int threads, long shmemKb, List<String> fdNames,
            List<String> fileNames, List<String> mappingNames) {

        static Resources of(long pid) throws IOException {
            Path proc = Path.of("/proc", Long.toString(pid));
            List<String> fdNames = new ArrayList<>();
            try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
                for (Path fd : fds.toList()) {
                    try {
                        fdNames.add(Files.readSymbolicLink(fd).toString());
                    } catch (NoSuchFileException e) {
                        // closed meanwhile
                    }
                }
            }
            List<String> fileNames = new ArrayList<>();
            try (Stream<Path> folders = Files.list(Path.of("/dev/shm"))) {
                for (Path folder : folders.filter(p -> p.getFileName().toString().startsWith("fastrmi-")
                        && Files.isDirectory(p)).toList()) {
                    try (Stream<Path> files = Files.list(folder)) {
                        // The server's own: KIND-nsNS-PID-N and KINDpipe-nsNS-PID-N-SLOT (other JVMs may share the folder).
                        files.map(p -> p.getFileName().toString()).filter(f -> f.matches("[a-z]+-ns[0-9]+-" + pid + "-.*"))
                                .forEach(fileNames::add);
                    }
                }
            }
            List<String> mappingNames = Files.readAllLines(proc.resolve("maps")).stream()
                    .filter(l -> l.contains("/dev/shm/") || l.contains("/SYSV")).map(l -> l.replaceAll("^\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+", ""))
                    .toList();
            int threads;
            try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
                threads = (int) tasks.count();
            }
            long shmemKb = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("Shmem:"))
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst().orElse(0L);
            return new Resources(fdNames.size(), fileNames.size(), mappingNames.size(), threads, shmemKb, fdNames, fileNames,
                    mappingNames);
        }

        boolean equalsInCounts(Resources other) {
            return fds == other.fds && files == other.files && mappings == other.mappings && threads == other.threads;
        }

        @Override
        public String toString() {
            return fds + " descriptors, " + files + " files in the user's folder, " + mappings + " /dev/shm mappings, "
                    + threads + " threads, host Shmem " + shmemKb / 1024 + " MiB";
        }
    }
}
