package io.fastrmi.netpipe.bench.mesh;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fastrmi.netpipe.bench.HandshakeCheck;
import io.fastrmi.netpipe.bench.report.Cell;
import io.fastrmi.netpipe.bench.report.Column;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import io.fastrmi.testkit.TestNetwork;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * Many hosts at once: {@code --hosts} network namespaces on one bridge, one {@link MeshPeer} JVM
 * each, every one serving and calling at the same time with {@value MeshPeer#THREADS} threads: a
 * star (every host calls host 0) and an all-to-all (every host calls every other one). Stock RMI and
 * the agent on each transport, each as its own set of JVMs, in an order that turns with the round.
 * Per pattern and column: the calls of all hosts per second of the slowest host (median over the
 * rounds), the time ratio to stock (stock's throughput / the column's: below 1 is faster), and the
 * calls lost (thrown or answered wrong), which must be none. An agent column counts only if every
 * connection was fast on its transport (JFR handshake events, as {@link HandshakeCheck} reads them).
 *
 * <p>Prints a table, {@code MESH pattern column ratio lost} lines, and writes the JSON to
 * {@code results/mesh-<timestamp>.json}. Exits with 1 if a call was lost or a column failed. Needs root
 * (network namespaces); without, says so and exits 0.
 *
 * <p>Usage: {@code Mesh --agent JAR [--jdk HOME] [--hosts 4] [--calls 2000] [--warmup 2000] [--rounds 3]
 * [--transports tcp,ucx:tcp,...] [--results DIR]}; calls and warm-up are per thread and pattern.
 */
public final class Mesh {

    static final String USAGE = "usage: Mesh --agent JAR [--jdk HOME] [--hosts N] [--calls N] [--warmup N] [--rounds N]"
            + " [--transports T,...] [--results DIR]";
    private static final Duration START_LIMIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** What the command line asked for. */
    record Options(Path agent, Jdk jdk, int hosts, int calls, int warmup, int rounds, List<String> transports,
            Path resultsDir) {

        static Options parse(String[] args) {
            Path agent = null;
            Jdk jdk = Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow();
            int hosts = 4;
            int calls = 2000;
            int warmup = 2000;
            int rounds = 3;
            List<String> transports = List.of("tcp");
            Path results = Path.of("results");
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--agent" -> agent = Path.of(value);
                    case "--jdk" -> jdk = Jdk.at(Path.of(value)).orElseThrow(() -> new IllegalArgumentException("no JDK at " + value));
                    case "--hosts" -> hosts = Integer.parseInt(value);
                    case "--calls" -> calls = Integer.parseInt(value);
                    case "--warmup" -> warmup = Integer.parseInt(value);
                    case "--rounds" -> rounds = Integer.parseInt(value);
                    case "--transports" -> transports = Arrays.stream(value.split(",")).map(String::trim).filter(t -> !t.isEmpty()).toList();
                    case "--results" -> results = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (agent == null) {
                throw new IllegalArgumentException("--agent is required");
            }
            if (hosts < 2 || calls < 1 || warmup < 0 || rounds < 1) {
                throw new IllegalArgumentException("--hosts needs at least 2, --calls and --rounds at least 1");
            }
            return new Options(agent, jdk, hosts, calls, warmup, rounds, transports, results);
        }

        List<Column> columns() {
            List<Column> columns = new ArrayList<>(List.of(Column.STOCK));
            transports.forEach(t -> columns.add(Column.agentOn(t)));
            return columns;
        }
    }

    /** One pattern's run on one column's hosts: the calls of all hosts, the lost ones, the slowest host's time. */
    record Run(long calls, long lost, long nanos) {
        double callsPerSecond() {
            return nanos == 0 ? 0 : calls * 1e9 / nanos;
        }
    }

    /** A column's runs in one round, per pattern; or why it has none. */
    record ColumnRound(Map<MeshPattern, Run> runs, String error) {
    }

    private Mesh() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("Mesh: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        if (!TestNetwork.available()) {
            System.out.println("Mesh skipped: network namespaces are not available (needs root and iproute2)");
            return;
        }
        LocalDateTime started = LocalDateTime.now();
        Map<Column, List<ColumnRound>> results = run(options);
        print(options, results);
        Path json = write(options, results, started);
        System.out.println("results: " + json);
        if (!problems(results).isEmpty()) {
            System.out.println("lost calls or failed columns: " + String.join("; ", problems(results)));
            System.exit(1);
        }
    }

    /** Every round of every column, on one network of {@code options.hosts()} namespaces. */
    static Map<Column, List<ColumnRound>> run(Options options) throws IOException {
        List<Column> columns = options.columns();
        Map<Column, List<ColumnRound>> results = new LinkedHashMap<>();
        columns.forEach(c -> results.put(c, new ArrayList<>()));
        String[] names = IntStream.rangeClosed(1, options.hosts()).mapToObj(i -> "host" + i).toArray(String[]::new);
        Path workDir = Files.createTempDirectory("fastrmi-mesh");
        System.out.printf(Locale.ROOT, "FastRMI mesh bench: JDK %s, %d hosts (network namespaces on one bridge), %d processors;"
                        + " %d threads per host, %d calls per thread and pattern after %d warm-up; %d round(s)%n",
                options.jdk().version(), options.hosts(), Runtime.getRuntime().availableProcessors(), MeshPeer.THREADS,
                options.calls(), options.warmup(), options.rounds());
        try (TestNetwork net = TestNetwork.create(names)) {
            for (int round = 1; round <= options.rounds(); round++) {
                List<Column> order = new ArrayList<>(columns);
                Collections.rotate(order, -(round - 1));
                for (Column column : order) {
                    System.err.printf(Locale.ROOT, "round %d/%d: %s ...%n", round, options.rounds(), column.name());
                    results.get(column).add(new HostSet(options, net, column, workDir.resolve("r" + round + "-" + column.fileName())).run());
                }
            }
        } finally {
            try (var files = Files.list(workDir)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(workDir);
        }
        return results;
    }

    /** One column's JVMs, one per host. */
    private static final class HostSet {
        private final Options options;
        private final TestNetwork net;
        private final Column column;
        private final Path prefix;
        private final List<ManagedJvm> jvms = new ArrayList<>();
        private final List<Path> recordings = new ArrayList<>();
        private int seq;

        HostSet(Options options, TestNetwork net, Column column, Path prefix) {
            this.options = options;
            this.net = net;
            this.column = column;
            this.prefix = prefix;
        }

        ColumnRound run() {
            Map<MeshPattern, Run> runs = new LinkedHashMap<>();
            try {
                start();
                for (MeshPattern pattern : MeshPattern.values()) {
                    if (options.warmup() > 0) {
                        runAll(pattern, options.warmup());
                    }
                }
                for (MeshPattern pattern : MeshPattern.values()) {
                    runs.put(pattern, runAll(pattern, options.calls()));
                }
                quit();
            } catch (RuntimeException | IOException e) {
                String message = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
                System.err.println("[" + column.name() + "] " + e.getMessage());
                return new ColumnRound(runs, message);
            } finally {
                jvms.forEach(ManagedJvm::close);
            }
            if (column.withAgent()) {
                Optional<String> notFast = HandshakeCheck.problem(column.transport(), recordings);
                if (notFast.isPresent()) {
                    return new ColumnRound(runs, "n/a: " + notFast.get());
                }
            }
            return new ColumnRound(runs, null);
        }

        private void start() throws IOException {
            Path config = column.withAgent() ? Files.write(Path.of(prefix + ".conf"), column.configLines(insideSection())) : null;
            Path settings = Files.writeString(Path.of(prefix + ".jfc"), HandshakeCheck.SETTINGS);
            List<String> addresses = new ArrayList<>();
            for (String host : net.hosts()) {
                Path jfr = Path.of(prefix + "-" + host + ".jfr");
                recordings.add(jfr);
                JvmLauncher jvm = JvmLauncher.on(options.jdk()).name(column.name() + "-" + host)
                        .timeLimit(Duration.ofMinutes(30)).wrapper(net.exec(host)).jvmArgs(net.jvmFlags(host))
                        .jvmArgs("-XX:StartFlightRecording=dumponexit=true,filename=" + jfr + ",settings=" + settings);
                if (config != null) {
                    jvm = jvm.agent(column.agentJar().orElse(options.agent()), "config=" + config)
                            .jvmArgs("--enable-native-access=ALL-UNNAMED");
                }
                jvms.add(jvm.classpathOf(MeshPeer.class).main(MeshPeer.class).args("--host", net.address(host)).start());
            }
            for (int i = 0; i < jvms.size(); i++) {
                addresses.add(net.address(net.hosts().get(i)) + ":"
                        + jvms.get(i).awaitLine(Pattern.compile("^READY (\\d+)$"), START_LIMIT).group(1));
            }
            for (int i = 0; i < jvms.size(); i++) {
                jvms.get(i).send("PEERS " + i + " " + String.join(",", addresses));
            }
            for (ManagedJvm jvm : jvms) {
                jvm.awaitLine(Pattern.compile("^CONNECTED "), START_LIMIT);
            }
        }

        private String insideSection() {
            return "[host " + String.join(" ", net.hosts().stream().map(net::address).toList()) + "]";
        }

        /** One pattern on every host at once; the slowest host's time. */
        private Run runAll(MeshPattern pattern, int calls) {
            String tag = String.valueOf(++seq);
            jvms.forEach(jvm -> jvm.send("RUN " + pattern.label() + " " + calls + " " + tag));
            long made = 0;
            long lost = 0;
            long slowest = 0;
            Pattern done = Pattern.compile("^DONE " + tag + " (\\d+) (\\d+) (\\d+)$");
            for (ManagedJvm jvm : jvms) {
                Matcher m = jvm.awaitLine(done, Duration.ofMinutes(20));
                made += Long.parseLong(m.group(1));
                lost += Long.parseLong(m.group(2));
                slowest = Math.max(slowest, Long.parseLong(m.group(3)));
            }
            if (lost > 0) {
                jvms.forEach(jvm -> jvm.output().stream().filter(l -> l.startsWith("LOST ")).findFirst()
                        .ifPresent(l -> System.err.println("[" + column.name() + " " + pattern.label() + "] " + l)));
            }
            return new Run(made, lost, slowest);
        }

        /** Ends every JVM through its standard input, so that each dumps its recording. */
        private void quit() {
            jvms.forEach(jvm -> jvm.send("quit"));
            for (ManagedJvm jvm : jvms) {
                int exit = jvm.awaitExit(Duration.ofSeconds(60));
                if (exit != 0) {
                    throw jvm.failure("exited with " + exit);
                }
            }
        }
    }

    /** The median over the rounds of a column's throughput in a pattern; NaN when a round has none. */
    static double medianCallsPerSecond(List<ColumnRound> rounds, MeshPattern pattern) {
        List<Double> values = new ArrayList<>();
        for (ColumnRound round : rounds) {
            if (round.error() != null || !round.runs().containsKey(pattern)) {
                return Double.NaN;
            }
            values.add(round.runs().get(pattern).callsPerSecond());
        }
        return Cell.median(values);
    }

    static long lost(List<ColumnRound> rounds, MeshPattern pattern) {
        return rounds.stream().map(r -> r.runs().get(pattern)).filter(r -> r != null).mapToLong(Run::lost).sum();
    }

    /** Lost calls and failed columns, one text each; empty when every call of every column came back right. */
    static List<String> problems(Map<Column, List<ColumnRound>> results) {
        List<String> problems = new ArrayList<>();
        results.forEach((column, rounds) -> {
            rounds.stream().map(ColumnRound::error).filter(e -> e != null).findFirst()
                    .ifPresent(e -> problems.add(column.name() + ": " + e));
            for (MeshPattern pattern : MeshPattern.values()) {
                if (lost(rounds, pattern) > 0) {
                    problems.add(column.name() + " " + pattern.label() + ": " + lost(rounds, pattern) + " calls lost");
                }
            }
        });
        return problems;
    }

    private static void print(Options options, Map<Column, List<ColumnRound>> results) {
        List<Column> columns = new ArrayList<>(results.keySet());
        System.out.println("each cell: calls per second of all hosts together (median over rounds), (time ratio x) ="
                + " stock's calls per second / the column's, lost calls");
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-11s", "pattern"));
        columns.forEach(c -> header.append(String.format(Locale.ROOT, " %30s", c.name().equals("stock") ? "stock RMI" : c.name())));
        System.out.println(header);
        for (MeshPattern pattern : MeshPattern.values()) {
            double stock = medianCallsPerSecond(results.get(Column.STOCK), pattern);
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-11s", pattern.label()));
            for (Column column : columns) {
                double value = medianCallsPerSecond(results.get(column), pattern);
                String cell = Double.isNaN(value) ? "n/a"
                        : column == Column.STOCK ? String.format(Locale.ROOT, "%.0f", value)
                        : String.format(Locale.ROOT, "%.0f (%.2fx)", value, stock / value);
                row.append(String.format(Locale.ROOT, " %30s", cell + " lost " + lost(results.get(column), pattern)));
            }
            System.out.println(row);
        }
        for (MeshPattern pattern : MeshPattern.values()) {
            double stock = medianCallsPerSecond(results.get(Column.STOCK), pattern);
            for (Column column : columns.subList(1, columns.size())) {
                System.out.printf(Locale.ROOT, "MESH %s %s %.2f lost %d%n", pattern.label(), column.name(),
                        stock / medianCallsPerSecond(results.get(column), pattern), lost(results.get(column), pattern));
            }
        }
    }

    private static Path write(Options options, Map<Column, List<ColumnRound>> results, LocalDateTime started) throws IOException {
        ObjectNode json = JSON.createObjectNode();
        json.put("started", started.toString());
        json.put("jdk", options.jdk().version());
        json.put("hosts", options.hosts());
        json.put("threads_per_host", MeshPeer.THREADS);
        json.put("processors", Runtime.getRuntime().availableProcessors());
        json.put("calls_per_thread", options.calls());
        json.put("warmup", options.warmup());
        json.put("rounds", options.rounds());
        ArrayNode cells = json.putArray("cells");
        for (Map.Entry<Column, List<ColumnRound>> entry : results.entrySet()) {
            for (MeshPattern pattern : MeshPattern.values()) {
                ObjectNode cell = cells.addObject();
                cell.put("column", entry.getKey().name());
                cell.put("pattern", pattern.label());
                double value = medianCallsPerSecond(entry.getValue(), pattern);
                double stock = medianCallsPerSecond(results.get(Column.STOCK), pattern);
                putNumber(cell, "calls_per_second", value);
                putNumber(cell, "time_ratio_to_stock", stock / value);
                cell.put("lost", lost(entry.getValue(), pattern));
                ArrayNode rounds = cell.putArray("rounds");
                for (ColumnRound round : entry.getValue()) {
                    ObjectNode r = rounds.addObject();
                    Run run = round.runs().get(pattern);
                    if (run != null) {
                        r.put("calls", run.calls());
                        r.put("lost", run.lost());
                        r.put("seconds", run.nanos() / 1e9);
                    }
                    if (round.error() != null) {
                        r.put("error", round.error());
                    }
                }
            }
        }
        Files.createDirectories(options.resultsDir());
        String stamp = started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
        Path file = options.resultsDir().resolve("mesh-" + stamp + ".json");
        JSON.writeValue(file.toFile(), json);
        return file;
    }

    private static void putNumber(ObjectNode node, String key, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            node.putNull(key);
        } else {
            node.put(key, Math.round(value * 1000) / 1000.0);
        }
    }
}
