package io.fastrmi.netpipe.apps;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fastrmi.netpipe.bench.HandshakeCheck;
import io.fastrmi.netpipe.bench.PairRunner;
import io.fastrmi.netpipe.bench.report.Column;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import io.fastrmi.testkit.TestNetwork;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * Runs the applications as a user's parallel job: per application, worker count and column (stock
 * RMI, then the agent on each transport asked for), one coordinator JVM and that many worker JVMs,
 * all on this host or spread over network namespaces (the coordinator and worker {@code i} on host
 * {@code i mod H}, H = min(workers, 4)). Every result is checked against the sequential one; an
 * agent run some of whose connections fell back to stock RMI (JFR's handshakes) is marked in the
 * table, its time not the transport's alone.
 * Prints the papers' table (time and speedup per worker count, stock beside the agent, the agent's
 * gain, the share of the workers' time in communication), writes {@code results/apps-<time>.json}
 * and a speedup plot beside it. Exits 1 if a result was wrong or a run failed.
 *
 * <p>Usage: {@code AppRunner --agent JAR [--jdk HOME] [--apps sor,asp,tsp,nbody] [--workers 1,2,4,8]
 * [--size quick|measure] [--transports ucx:shm] [--rounds 1] [--hosts local|netns] [--jfr on|off] [--results DIR]}.
 * With {@code --jfr off} no JVM records (as most jobs run): the agent's JFR events then cost
 * nothing, and nothing checks that its connections were fast, which the table says.
 * Transports default to {@code ucx:shm} on one host and {@code tcp} across namespaces (what the
 * agent picks there); a run's time is the median of its rounds.
 */
public final class AppRunner {

    static final String USAGE = "usage: AppRunner --agent JAR [--jdk HOME] [--apps sor,asp,tsp,nbody] [--workers 1,2,4,8]"
            + " [--size quick|measure] [--transports T,...] [--rounds N] [--hosts local|netns] [--jfr on|off] [--results DIR]";
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final long WORKER_POLL_MILLIS = 20;
    private static final int NAMESPACE_PORT = 47_001;
    private static final int MAX_HOSTS = 4;

    /** What the command line asked for. */
    record Options(Path agent, Jdk jdk, List<String> apps, List<Integer> workers, String size, List<String> transports,
            int rounds, boolean namespaces, boolean recorded, Path resultsDir) {

        static Options parse(String[] args) {
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i += 2) {
                if (!args[i].startsWith("--") || i + 1 >= args.length) {
                    throw new IllegalArgumentException("every option takes a value: " + args[i]);
                }
                values.put(args[i].substring(2), args[i + 1]);
            }
            List<String> known = List.of("agent", "jdk", "apps", "workers", "size", "transports", "rounds", "hosts", "jfr",
                    "results");
            values.keySet().stream().filter(k -> !known.contains(k)).findFirst().ifPresent(k -> {
                throw new IllegalArgumentException("no option --" + k);
            });
            if (!values.containsKey("agent")) {
                throw new IllegalArgumentException("--agent is required");
            }
            String hosts = values.getOrDefault("hosts", "local");
            if (!hosts.equals("local") && !hosts.equals("netns")) {
                throw new IllegalArgumentException("--hosts is local or netns, not " + hosts);
            }
            boolean namespaces = hosts.equals("netns");
            String jfr = values.getOrDefault("jfr", "on");
            if (!jfr.equals("on") && !jfr.equals("off")) {
                throw new IllegalArgumentException("--jfr is on or off, not " + jfr);
            }
            List<String> apps = List.of(values.getOrDefault("apps", String.join(",", Apps.NAMES)).split(","));
            String size = values.getOrDefault("size", "quick");
            apps.forEach(app -> Apps.of(app, size)); // refuses an unknown name or size now, not after an hour
            List<Integer> workers = Arrays.stream(values.getOrDefault("workers", "1,2,4,8").split(","))
                    .map(Integer::valueOf).toList();
            if (workers.stream().anyMatch(w -> w < 1)) {
                throw new IllegalArgumentException("--workers are 1 or more: " + workers);
            }
            String home = values.getOrDefault("jdk", System.getProperty("java.home"));
            Jdk jdk = Jdk.at(Path.of(home)).orElseThrow(() -> new IllegalArgumentException("not a JDK: " + home));
            return new Options(Path.of(values.get("agent")), jdk, apps, workers, size,
                    List.of(values.getOrDefault("transports", namespaces ? "tcp" : "ucx:shm").split(",")),
                    Integer.parseInt(values.getOrDefault("rounds", "1")), namespaces, jfr.equals("on"),
                    Path.of(values.getOrDefault("results", "results")));
        }
    }

    /**
     * One run's outcome: its time, the workers' share in communication, their calls; or why it
     * failed. {@code notFast}: an agent run whose result was right but some of whose connections
     * fell back to stock RMI (null when all were fast): its time is not the transport's alone.
     */
    record Outcome(double millis, double commShare, long calls, String error, String notFast) {
        static Outcome failed(String error) {
            return new Outcome(Double.NaN, Double.NaN, 0, error, null);
        }

        boolean ok() {
            return error == null;
        }
    }

    private AppRunner() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("AppRunner: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        if (options.namespaces() && !TestNetwork.available()) {
            System.out.println("AppRunner skipped: network namespaces are not available (needs root and iproute2)");
            return;
        }
        LocalDateTime started = LocalDateTime.now();
        List<Column> columns = new ArrayList<>(List.of(Column.STOCK));
        options.transports().forEach(t -> columns.add(Column.agentOn(t)));
        Map<String, Map<Integer, Map<String, Outcome>>> results = run(options, columns);
        AppTable.print(options, columns, results);
        Path json = write(options, columns, results, started);
        System.out.println("results: " + json);
        Path plot = AppPlot.write(results, columns, json.resolveSibling(json.getFileName().toString().replace(".json", ".png")));
        System.out.println("plot: " + plot);
        boolean failed = results.values().stream().flatMap(byP -> byP.values().stream())
                .flatMap(byColumn -> byColumn.values().stream()).anyMatch(o -> !o.ok());
        System.exit(failed ? 1 : 0);
    }

    /** Every application, worker count and column, rounds taken in turn; each cell the median of its rounds. */
    static Map<String, Map<Integer, Map<String, Outcome>>> run(Options options, List<Column> columns) throws Exception {
        Path work = Files.createTempDirectory("fastrmi-apps");
        Path jfc = Files.writeString(work.resolve("handshakes.jfc"), HandshakeCheck.SETTINGS);
        Map<String, Map<Integer, Map<String, Outcome>>> results = new LinkedHashMap<>();
        for (String app : options.apps()) {
            for (int workers : options.workers()) {
                Map<String, List<Outcome>> rounds = new LinkedHashMap<>();
                for (int round = 0; round < options.rounds(); round++) {
                    for (Column column : columns) {
                        Outcome outcome = runOnce(options, app, workers, column, work, jfc);
                        System.out.printf(Locale.ROOT, "RUN app=%s workers=%d column=%s round=%d %s%s%n", app, workers,
                                column.name(), round + 1, outcome.ok() ? String.format(Locale.ROOT,
                                        "millis=%.1f comm=%.3f calls=%d", outcome.millis(), outcome.commShare(),
                                        outcome.calls()) : "FAILED " + outcome.error(),
                                outcome.notFast() == null ? "" : " (" + outcome.notFast() + ")");
                        rounds.computeIfAbsent(column.name(), k -> new ArrayList<>()).add(outcome);
                    }
                }
                Map<String, Outcome> cells = new LinkedHashMap<>();
                rounds.forEach((column, outcomes) -> cells.put(column, median(outcomes)));
                results.computeIfAbsent(app, k -> new LinkedHashMap<>()).put(workers, cells);
            }
        }
        return results;
    }

    /** The round of median time; a failed round makes the cell failed. */
    private static Outcome median(List<Outcome> outcomes) {
        Optional<Outcome> failed = outcomes.stream().filter(o -> !o.ok()).findFirst();
        if (failed.isPresent()) {
            return failed.get();
        }
        List<Outcome> sorted = outcomes.stream().sorted((a, b) -> Double.compare(a.millis(), b.millis())).toList();
        return sorted.get(sorted.size() / 2);
    }

    /**
     * Waits for every worker to exit, in whatever order they do: the first that fails (a crash, an
     * exception) fails the run at once, since the others may wait for it until their time limit.
     */
    static Optional<String> awaitWorkers(List<ManagedJvm> workers) throws InterruptedException {
        List<ManagedJvm> running = new ArrayList<>(workers);
        while (!running.isEmpty()) {
            for (Iterator<ManagedJvm> it = running.iterator(); it.hasNext();) {
                ManagedJvm jvm = it.next();
                if (jvm.isAlive()) {
                    continue;
                }
                int exit = jvm.awaitExit(LIMIT); // gone already: collects its output (or its time limit)
                if (exit != 0) {
                    return Optional.of("a worker exited with " + exit + ": " + jvm.failure("worker").getMessage());
                }
                it.remove();
            }
            Thread.sleep(WORKER_POLL_MILLIS);
        }
        return Optional.empty();
    }

    /** One coordinator and {@code workers} workers, to the end: the coordinator's RESULT, checked. */
    static Outcome runOnce(Options options, String app, int workers, Column column, Path work, Path jfc)
            throws IOException {
        int hostCount = Math.max(1, Math.min(workers, MAX_HOSTS));
        List<String> hostNames = new ArrayList<>();
        for (int h = 1; h <= hostCount; h++) {
            hostNames.add("host" + h);
        }
        TestNetwork net = options.namespaces() ? TestNetwork.create(hostNames.toArray(String[]::new)) : null;
        String tag = app + "-" + workers + "-" + column.fileName();
        List<Path> recordings = new ArrayList<>();
        List<ManagedJvm> jvms = new ArrayList<>();
        try {
            Path config = column.withAgent() ? Files.write(work.resolve(tag + ".conf"),
                    column.configLines(net == null ? "[host local]" : "[host " + String.join(" ",
                            hostNames.stream().map(net::address).toList()) + "]")) : null;
            int port = net == null ? freePort() : NAMESPACE_PORT;
            String coordinatorAddress = net == null ? "127.0.0.1" : net.address(hostNames.get(0));
            Path coordinatorJfr = work.resolve(tag + "-coordinator.jfr");
            if (options.recorded()) {
                recordings.add(coordinatorJfr);
            }
            ManagedJvm coordinator = place(launcher(options, column, config, coordinatorJfr, jfc, tag + "-coordinator"),
                    net, hostNames.get(0)).classpathOf(AppCoordinator.class).main(AppCoordinator.class)
                    .args(app, options.size(), String.valueOf(workers), String.valueOf(port)).start();
            jvms.add(coordinator);
            coordinator.awaitLine(AppCoordinator.READY, Duration.ofSeconds(60));
            for (int w = 0; w < workers; w++) {
                Path jfr = work.resolve(tag + "-worker" + w + ".jfr");
                if (options.recorded()) {
                    recordings.add(jfr);
                }
                jvms.add(place(launcher(options, column, config, jfr, jfc, tag + "-worker" + w), net,
                        hostNames.get(w % hostCount)).classpathOf(AppWorker.class).main(AppWorker.class)
                        .args(coordinatorAddress, String.valueOf(port), app, options.size()).start());
            }
            Optional<String> workerFailed = awaitWorkers(jvms.subList(1, jvms.size()));
            if (workerFailed.isPresent()) {
                return Outcome.failed(workerFailed.get());
            }
            int exit = coordinator.awaitExit(Duration.ofMinutes(5));
            Optional<Matcher> result = coordinator.output().stream().map(AppCoordinator.RESULT::matcher)
                    .filter(Matcher::matches).findFirst();
            if (result.isEmpty() || exit != 0) {
                return Outcome.failed("the coordinator exited with " + exit + ": "
                        + coordinator.output().stream().filter(l -> l.startsWith("MISMATCH")).findFirst()
                                .orElse(coordinator.failure("coordinator").getMessage()));
            }
            // Workers exit as they finish, while others may still connect to them (DGC): a plain
            // connection to a worker going away is not a fallback.
            String notFast = column.withAgent() && options.recorded() ? HandshakeCheck.problem(column.transport(), recordings, true)
                    .map(why -> "not all fast on " + column.transport() + ": " + why).orElse(null) : null;
            Matcher m = result.get();
            return new Outcome(Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)), Long.parseLong(m.group(6)),
                    null, notFast);
        } catch (RuntimeException e) {
            return Outcome.failed(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.failed("interrupted while its workers ran");
        } finally {
            jvms.forEach(ManagedJvm::close);
            recordings.forEach(PairRunner::deleteQuietly);
            if (net != null) {
                net.close();
            }
        }
    }

    private static JvmLauncher launcher(Options options, Column column, Path config, Path jfr, Path jfc, String name) {
        JvmLauncher jvm = JvmLauncher.on(options.jdk()).name(name).timeLimit(LIMIT);
        if (options.recorded()) {
            // Stock JVMs record too, so that both columns pay JFR's own cost (the agent's JVMs pay
            // more: docs/benchmarks.md, the applications).
            jvm.jvmArgs("-XX:StartFlightRecording=dumponexit=true,filename=" + jfr + ",settings=" + jfc);
        }
        if (!column.withAgent()) {
            return jvm;
        }
        return jvm.agent(column.agentJar().orElse(options.agent()), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED");
    }

    private static JvmLauncher place(JvmLauncher jvm, TestNetwork net, String host) {
        return net == null ? jvm : jvm.wrapper(net.exec(host)).jvmArgs(net.jvmFlags(host));
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    private static Path write(Options options, List<Column> columns, Map<String, Map<Integer, Map<String, Outcome>>> results,
            LocalDateTime started) throws IOException {
        Files.createDirectories(options.resultsDir());
        Path json = options.resultsDir().resolve("apps-" + started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + ".json");
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("started", started.toString());
        document.put("jdk", options.jdk().version());
        document.put("hosts", options.namespaces() ? "netns" : "local");
        document.put("size", options.size());
        document.put("rounds", options.rounds());
        document.put("jfr", options.recorded());
        document.put("processors", Runtime.getRuntime().availableProcessors());
        document.put("columns", columns.stream().map(Column::name).toList());
        document.put("results", results);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), document);
        return json;
    }
}
