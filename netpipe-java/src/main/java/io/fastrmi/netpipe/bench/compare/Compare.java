package io.fastrmi.netpipe.bench.compare;

import io.fastrmi.netpipe.bench.BusyLoad;
import io.fastrmi.netpipe.bench.HandshakeCheck;
import io.fastrmi.netpipe.bench.Hosts;
import io.fastrmi.netpipe.bench.LocalHosts;
import io.fastrmi.netpipe.bench.NamespaceHosts;
import io.fastrmi.netpipe.bench.PairRunner;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * netpipe-java's side-by-side run (what {@code scripts/compare.sh} and {@code make demo} start): for
 * each load (quiet, then with as many busy threads as cores) and each peer (stock RMI, the agent on
 * each transport, Dirmi, gRPC-java), a server JVM and a client JVM running the same kernels and sweeps
 * ({@code netpipe-java suite}); then the C floors. A peer that fails or hangs gets its reason in its
 * cells, is killed, and the run goes on. Writes under {@code --results}: the table (also printed), a
 * JSON summary, the np.out files and PNG plots.
 */
@Command(name = "compare", description = "Stock RMI, the agent on each transport Dirmi and gRPC-java side by side, quiet and"
        + " loaded, on the same kernels; table, JSON, np.out files and plots under --results.")
public final class Compare implements Callable<Integer> {

    private static final Pattern READY = Pattern.compile("^READY (\\d+)$");
    /** netpipe-java's entry point, whose server and suite commands the run starts (named, not imported: it lists this command). */
    private static final String SUITE_MAIN = "io.fastrmi.netpipe.NetPipe";
    private static final Duration START_LIMIT = Duration.ofSeconds(60);

    @Option(names = "--help", usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "--agent", description = "fastrmi-agent.jar, for the agent's peers")
    Path agent;

    @Option(names = "--jdk", description = "the JDK the peers run on (default: this one)")
    Path jdkHome;

    @Option(names = "--results", description = "where the run's folder goes (default ${DEFAULT-VALUE})")
    Path results = Path.of("results");

    @Option(names = "--peers", split = ",", description = "stock, dirmi, grpc, and agent transports such as tcp, ofi:shm,"
            + " ucx:shm (default ${DEFAULT-VALUE})")
    List<String> peers = List.of("stock", "tcp", "ofi:shm", "ucx:shm", "dirmi", "grpc");

    @Option(names = "--load", split = ",", description = "quiet, loaded (default ${DEFAULT-VALUE})")
    List<String> loads = List.of("quiet", "loaded");

    @Option(names = "--quick", description = "make demo's short run: fewer kernels, sweeps to 1 MiB, short trials")
    boolean quick;

    @Option(names = "--hosts", description = "local (both JVMs here) or netns (two network namespaces; root) (default ${DEFAULT-VALUE})")
    String hosts = "local";

    @Option(names = "--no-floors", description = "leave out the C floors (fi_pingpong, ucx_perftest)")
    boolean noFloors;

    @Option(names = "--trial-time", description = "seconds a trial aims at, for every kernel and sweep point (default:"
            + " the plan's: NetPIPE's 0.25 s for the full plan, 0.05 s for --quick)")
    Double trialSeconds;

    @Option(names = "--timeout", description = "seconds a peer's client may run before it is killed (default ${DEFAULT-VALUE})")
    int timeoutSeconds = 1800;

    @Override
    public Integer call() throws Exception {
        ComparePlan plan = quick ? ComparePlan.QUICK : ComparePlan.FULL;
        Jdk jdk = Jdk.at(jdkHome != null ? jdkHome : Path.of(System.getProperty("java.home")))
                .orElseThrow(() -> new IllegalArgumentException("--jdk: no JDK at " + jdkHome));
        List<ComparePeer> chosen = peers.stream().map(ComparePeer::parse).toList();
        if (chosen.stream().anyMatch(p -> p.agent().isPresent()) && agent == null) {
            throw new IllegalArgumentException("--agent: the agent's peers (" + peers + ") need fastrmi-agent.jar");
        }
        if (chosen.stream().noneMatch(ComparePeer::isStock)) {
            throw new IllegalArgumentException("--peers: stock must be one of them: every ratio is to stock RMI");
        }
        String started = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path run = results.resolve("compare-" + started);
        Files.createDirectories(run.resolve("np"));
        Files.writeString(run.resolve("handshakes.jfc"), HandshakeCheck.SETTINGS);
        CompareResults outcome = new CompareResults(plan, chosen, loads, jdk.version(), started,
                hostsDescription(), trialSeconds == null ? "" : " (trials of " + trialSeconds + " s)");
        try (Hosts where = hosts.equals("netns") ? NamespaceHosts.create() : new LocalHosts()) {
            for (String load : loads) {
                try (BusyLoad busy = load.equals("loaded") ? BusyLoad.start(Runtime.getRuntime().availableProcessors())
                        : BusyLoad.none()) {
                    for (ComparePeer peer : chosen) {
                        System.err.printf("[%s] %s ...%n", load, peer.label());
                        outcome.put(load, peer, runPeer(jdk, where, plan, peer, load, run));
                    }
                    // Quiet only: the C tools busy-poll, so beside busy threads they measure the scheduler (they did not finish in 60 s here).
                    if (!noFloors && hosts.equals("local") && load.equals("quiet")) {
                        outcome.putFloors(load, CFloors.measure(plan.floorIterations(), run));
                    }
                }
            }
        }
        String table = outcome.table();
        System.out.print(table);
        Files.writeString(run.resolve("table.txt"), table);
        outcome.writeJson(run.resolve("summary.json"));
        List<Path> plots = ComparePlots.write(outcome, run);
        System.out.println("results: " + run + " (table.txt, summary.json, np/*.out, " + plots.size() + " plots)");
        return 0;
    }

    private String hostsDescription() {
        return hosts.equals("netns") ? "two network namespaces (veth)" : "both JVMs on this host";
    }

    /** One peer's server and client; every item's outcome, failures included. */
    private Map<String, CompareResults.Cell> runPeer(Jdk jdk, Hosts where, ComparePlan plan, ComparePeer peer, String load,
            Path run) {
        Path jfrSettings = run.resolve("handshakes.jfc");
        String tag = load + "-" + peer.fileName();
        Path npDir = run.resolve("np").resolve(tag);
        Path serverJfr = run.resolve(tag + "-server.jfr");
        Path clientJfr = run.resolve(tag + "-client.jfr");
        Map<String, CompareResults.Cell> cells = new LinkedHashMap<>();
        try {
            Path config = null;
            if (peer.agent().isPresent()) {
                config = Files.write(run.resolve(tag + ".conf"), peer.agent().get().configLines(where.insideSection()));
            }
            List<String> serverArgs = new ArrayList<>(List.of("server", "--mode", peer.protocol()));
            serverArgs.addAll(where.serverArgs());
            try (ManagedJvm server = where.server(launcher(jdk, peer, "server", config, serverJfr, jfrSettings))
                    .args(serverArgs).start()) {
                Matcher ready;
                try {
                    ready = server.awaitLine(READY, START_LIMIT);
                } catch (IllegalStateException e) {
                    return allFailed(plan, "the server did not start: " + PairRunner.firstLine(e.getMessage()));
                }
                Path results = run.resolve(tag + "-results.json");
                List<String> clientArgs = new ArrayList<>(List.of("suite", "-h", where.serverAddress(), "-P", ready.group(1),
                        "--peer", peer.protocol(), "--out", npDir.toString(), "--results", results.toString(),
                        "--kernels", String.join(",", plan.kernels()), "--sweeps", String.join(",", plan.sweeps())));
                clientArgs.addAll(plan.clientOptions());
                if (trialSeconds != null) {
                    clientArgs.addAll(List.of("--trial-time", String.valueOf(trialSeconds))); // the last value wins
                }
                String ending;
                try (ManagedJvm client = where.client(launcher(jdk, peer, "client", config, clientJfr, jfrSettings))
                        .args(clientArgs).timeLimit(Duration.ofSeconds(timeoutSeconds + 60)).start()) {
                    try {
                        int exit = client.awaitExit(Duration.ofSeconds(timeoutSeconds));
                        ending = "the client exited with " + exit;
                    } catch (IllegalStateException e) {
                        ending = "the client did not finish within " + timeoutSeconds + " s and was killed";
                    }
                }
                server.stop(Duration.ofSeconds(10));
                for (SuiteResults.Item item : SuiteResults.read(results)) {
                    cells.put(item.item(), item.cell());
                }
                for (String item : plan.items()) {
                    cells.putIfAbsent(item, CompareResults.Cell.failed("no result: " + ending));
                }
            }
            if (peer.agent().isPresent()) {
                Optional<String> notFast = HandshakeCheck.problem(peer.agent().get().transport(), List.of(serverJfr, clientJfr));
                notFast.ifPresent(why -> cells.replaceAll((item, cell) -> cell.ok() ? CompareResults.Cell.unavailable(why) : cell));
            }
            return cells;
        } catch (IOException | RuntimeException e) {
            return allFailed(plan, PairRunner.firstLine(String.valueOf(e)));
        } finally {
            PairRunner.deleteQuietly(serverJfr);
            PairRunner.deleteQuietly(clientJfr);
        }
    }

    private JvmLauncher launcher(Jdk jdk, ComparePeer peer, String role, Path config, Path jfr, Path jfrSettings) {
        JvmLauncher jvm = JvmLauncher.on(jdk).name(peer.name() + "-" + role).timeLimit(Duration.ofSeconds(timeoutSeconds + 120))
                .jvmArgs("-XX:StartFlightRecording=dumponexit=true,filename=" + jfr + ",settings=" + jfrSettings)
                .main(SUITE_MAIN);
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            jvm.classpath(Path.of(entry));
        }
        return peer.agent().isEmpty() ? jvm : jvm.agent(peer.agent().get().agentJar().orElse(agent), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED");
    }

    private static Map<String, CompareResults.Cell> allFailed(ComparePlan plan, String why) {
        Map<String, CompareResults.Cell> cells = new LinkedHashMap<>();
        plan.items().forEach(item -> cells.put(item, CompareResults.Cell.failed(why)));
        return cells;
    }
}
