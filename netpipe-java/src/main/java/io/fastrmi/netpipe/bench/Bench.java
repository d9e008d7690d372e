package io.fastrmi.netpipe.bench;

import io.fastrmi.netpipe.bench.kernels.JitSettling;
import io.fastrmi.netpipe.bench.kernels.Kernels;
import io.fastrmi.netpipe.bench.kernels.ThreadCosts;
import io.fastrmi.netpipe.bench.report.BenchOptions;
import io.fastrmi.netpipe.bench.report.Column;
import io.fastrmi.netpipe.bench.report.Outcome;
import io.fastrmi.netpipe.bench.report.ResultJson;
import io.fastrmi.netpipe.bench.report.ResultTable;
import io.fastrmi.netpipe.bench.report.Results;
import io.fastrmi.testkit.TestNetwork;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The RMI benchmark: stock RMI and the agent on each transport, kernel by kernel (null call, int
 * echo, a 15-node tree, an order transformed, a callback, 1 MiB of doubles, 8 threads at once), each
 * column as its own server/client JVM pair, with the machine quiet and then loaded. Every round
 * starts a fresh pair per column for each load, then runs each kernel's calls in batches that the
 * pairs, stock among them, take in turn ({@link Batches}), so the weather of a shared machine falls
 * on all alike (a run of first calls: one batch a pair, {@link Batches#firstCalls}); per cell the
 * median over the rounds of each round's median and 99th percentile is kept. An agent column counts
 * only if every connection was negotiated fast on its transport (JFR handshake events), else it is
 * n/a.
 *
 * <p>Prints a table per load, the worst ratio of each transport ({@code WORST load transport kernel
 * ratio} lines), each round's raw numbers on stderr ({@code RAW ...}), and writes it all as JSON
 * to {@code results/bench-<timestamp>.json}. Exits with 1 if any cell had an error.
 *
 * <p>Usage: see {@link BenchOptions#USAGE}.
 */
public final class Bench {

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("Bench: " + e.getMessage());
            System.err.println(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.hosts().equals(BenchOptions.NETNS)) {
            try {
                TestNetwork.requireAvailable();
            } catch (IllegalStateException e) {
                System.out.println("Bench --hosts netns skipped: " + e.getMessage());
                return;
            }
        }
        LocalDateTime started = LocalDateTime.now();
        Results results = new Results(options);
        String where;
        try (Hosts hosts = options.hosts().equals(BenchOptions.NETNS) ? NamespaceHosts.create() : new LocalHosts()) {
            where = hosts.description();
            printHeader(options, where);
            runAll(options, hosts, results);
        }
        ResultTable.print(results, System.out);
        Path json = jsonFile(options.resultsDir(), started);
        ResultJson.write(results, started.toString(), where, json);
        System.out.println("results: " + json);
        if (hasErrors(results)) {
            System.out.println("some cells had errors: see the notes under the tables");
            System.exit(1);
        }
    }

    private static void printHeader(BenchOptions options, String where) {
        String batches = options.warmup() == 0 ? "each pair's in one batch, the pairs in turn once all compilers settled"
                : options.batches() + " batches per pair taken in turn";
        System.out.printf(Locale.ROOT, "FastRMI RMI bench: JDK %s, %s, %d processors; %d timed calls per kernel"
                        + " (echo-1mib: %d; paced: %d; jmx-scrape: %d scrapes; star8: per thread), %s, %d warm-up;"
                        + " %d round(s)%n",
                options.jdk().version(), where, Runtime.getRuntime().availableProcessors(), options.calls(),
                Kernels.bulkCalls(options.calls()), Kernels.pacedCalls(options.calls()), Kernels.scrapes(options.calls()),
                batches, options.warmup(), options.rounds());
        System.out.println("each cell: median/p99 of the per-call round trip in us (median over rounds);"
                + " (ratio x) = agent median / stock median; star8's median is the wall time of its timed phase"
                + " per call of one thread (8 threads at once), its p99 that of single calls");
    }

    private static void runAll(BenchOptions options, Hosts hosts, Results results) throws Exception {
        Path workDir = Files.createTempDirectory("fastrmi-bench");
        PairRunner runner = new PairRunner(options, hosts, workDir);
        for (int round = 1; round <= options.rounds(); round++) {
            for (String load : options.loads()) {
                System.err.printf(Locale.ROOT, "round %d/%d, %s: starting %d pairs ...%n", round, options.rounds(), load,
                        options.columns().size());
                BusyLoad busy = load.equals(BenchOptions.LOADED)
                        ? BusyLoad.start(Runtime.getRuntime().availableProcessors()) : BusyLoad.none();
                List<PairRunner.LivePair> pairs = new ArrayList<>();
                try {
                    for (Column column : options.columns()) {
                        pairs.add(runner.open(column, "r" + round + "-" + load + "-" + column.fileName()));
                    }
                    if (options.warmup() == 0) {
                        firstCalls(options, round, pairs);
                    } else {
                        interleave(options, round, pairs);
                    }
                    for (PairRunner.LivePair pair : pairs) {
                        Map<String, Outcome> outcomes = pair.finish();
                        results.add(round, load, pair.column(), outcomes);
                        printRaw(round, load, pair.column(), outcomes);
                    }
                } finally {
                    pairs.forEach(PairRunner.LivePair::close);
                    busy.close();
                }
            }
        }
        deleteDirectory(workDir);
    }

    /**
     * A run of first calls: the clients made no call after their lookup ({@link BenchClient}), so the
     * wait for the JIT compilers to settle is here, before each pair's calls, by their threads' CPU
     * time, and over every pair of the round (a pair started last, or the one timed before, would
     * still compile while the next is timed).
     */
    private static void awaitCompilers(List<PairRunner.LivePair> pairs) {
        try {
            long waited = JitSettling.await(() -> {
                long sum = 0;
                for (PairRunner.LivePair pair : pairs) {
                    for (long pid : pair.pids()) {
                        long nanos = ThreadCosts.compilerNanos(pid);
                        if (nanos < 0) {
                            return -1;
                        }
                        sum += nanos;
                    }
                }
                return sum;
            });
            System.err.printf(Locale.ROOT, "compilers settled after %d ms%n", waited);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A run of first calls: each pair's calls of a kernel in one batch, once all compilers settled ({@link Batches#firstCalls}). */
    private static void firstCalls(BenchOptions options, int round, List<PairRunner.LivePair> pairs) {
        Batches.firstCalls(PairRunner.kernelOrder(options.kernels(), round), pairs, round, () -> awaitCompilers(pairs),
                (pair, kernel) -> {
                    System.err.printf(Locale.ROOT, "round %d/%d, %s: first calls of %s ...%n", round, options.rounds(),
                            kernel, pair.column().name());
                    pair.batch(kernel, 0, 1);
                });
    }

    /** Every kernel in the round's order, its batches taken by all pairs in turn ({@link Batches}). */
    private static void interleave(BenchOptions options, int round, List<PairRunner.LivePair> pairs) {
        for (String kernel : PairRunner.kernelOrder(options.kernels(), round)) {
            System.err.printf(Locale.ROOT, "round %d/%d, %s: %d batches per pair ...%n", round, options.rounds(), kernel,
                    options.batches());
            for (int batch = 0; batch < options.batches(); batch++) {
                for (PairRunner.LivePair pair : Batches.turn(pairs, batch)) {
                    pair.batch(kernel, batch, options.batches());
                }
            }
        }
    }

    /** Each round's numbers, so the noise between rounds can be seen. */
    private static void printRaw(int round, String load, Column column, Map<String, Outcome> outcomes) {
        outcomes.forEach((kernel, o) -> System.err.println(o.isTimed()
                ? String.format(Locale.ROOT, "RAW round=%d load=%s column=%s kernel=%s median_us=%.2f p99_us=%.2f calls=%d",
                        round, load, column.name(), kernel, o.medianMicros(), o.p99Micros(), o.calls())
                : String.format(Locale.ROOT, "RAW round=%d load=%s column=%s kernel=%s %s",
                        round, load, column.name(), kernel, o.problem())));
    }

    private static boolean hasErrors(Results results) {
        BenchOptions options = results.options();
        for (String load : options.loads()) {
            for (Column column : options.columns()) {
                for (String kernel : options.kernels()) {
                    if (results.cell(load, column, kernel).rounds().values().stream().anyMatch(o -> o.error() != null)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static Path jsonFile(Path dir, LocalDateTime started) {
        String stamp = started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
        Path file = dir.resolve("bench-" + stamp + ".json");
        for (int n = 2; Files.exists(file); n++) {
            file = dir.resolve("bench-" + stamp + "-" + n + ".json");
        }
        return file;
    }

    private static void deleteDirectory(Path dir) throws java.io.IOException {
        try (var files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(dir);
    }
}
