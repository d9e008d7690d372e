package io.fastrmi.netpipe.bench.report;

import io.fastrmi.netpipe.bench.kernels.Kernels;
import io.fastrmi.netpipe.bench.report.Column;
import io.fastrmi.testkit.Jdk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The driver's command line. */
public record BenchOptions(Path agent, Jdk jdk, List<String> transports, int rounds, int calls, int batches, int warmup,
        List<String> loads, String hosts, List<String> kernels, Path resultsDir, Duration timeout) {

    static final String QUIET = "quiet";
    public static final String LOADED = "loaded";
    static final String LOCAL = "local";
    public static final String NETNS = "netns";

    public static final String USAGE = "usage: Bench --agent fastrmi-agent.jar [--jdk HOME]"
            + " [--transports 'ucx:shm,ofi:shm,tcp'] [--rounds 5] [--calls 20000] [--batches 10; 1 with --warmup 0] [--warmup calls/2]"
            + " [--load quiet,loaded] [--hosts local|netns] [--kernels " + String.join(",", Kernels.ALL) + "]"
            + " [--results results] [--timeout 600 (seconds per server/client pair)]\n"
            + "  default transports: ucx:shm,ofi:shm,tcp with --hosts local; tcp,ucx:tcp,ofi:tcp;ofi_rxm with --hosts netns\n"
            + "  a transport may carry @key=value settings: config lines (ucx:shm@wait=spin, ucx:shm@optimizations=all), or @agent=JAR to run"
            + " that column under another agent jar (two builds in one run)";

    /** Parses the arguments; throws IllegalArgumentException with what is wrong. */
    public static BenchOptions parse(String[] args) {
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("every option takes a value");
        }
        Path agent = null;
        Jdk jdk = Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow();
        List<String> transports = null;
        int rounds = 5;
        int calls = 20_000;
        Integer batches = null;
        int warmup = -1;
        List<String> loads = List.of(QUIET, LOADED);
        String hosts = LOCAL;
        List<String> kernels = Kernels.ALL;
        Path resultsDir = Path.of("results");
        Duration timeout = Duration.ofMinutes(10);
        for (int i = 0; i < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--agent" -> agent = Path.of(value).toAbsolutePath();
                case "--jdk" -> jdk = Jdk.at(Path.of(value)).orElseThrow(() -> new IllegalArgumentException("not a JDK: " + value));
                case "--transports" -> transports = list(value);
                case "--rounds" -> rounds = positive("--rounds", value);
                case "--calls" -> calls = positive("--calls", value);
                case "--batches" -> batches = positive("--batches", value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--load" -> loads = oneOf("--load", list(value), List.of(QUIET, LOADED));
                case "--hosts" -> hosts = oneOf("--hosts", List.of(value), List.of(LOCAL, NETNS)).get(0);
                case "--kernels" -> kernels = oneOf("--kernels", list(value), Kernels.ALL);
                case "--results" -> resultsDir = Path.of(value);
                case "--timeout" -> timeout = Duration.ofSeconds(positive("--timeout", value));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (agent == null) {
            throw new IllegalArgumentException("--agent is required");
        }
        if (transports == null) {
            transports = hosts.equals(LOCAL) ? List.of("ucx:shm", "ofi:shm", "tcp") : List.of("tcp", "ucx:tcp", "ofi:tcp;ofi_rxm");
        }
        // Half as many warm-up calls as timed ones: enough for the JIT, without doubling the run.
        warmup = warmup < 0 ? calls / 2 : warmup;
        if (warmup == 0 && batches != null && batches != 1) {
            throw new IllegalArgumentException("--warmup 0 (first calls) times each pair's calls in one batch, not "
                    + batches + ": its compiling would fall into the next pair's batch or out of its own timed calls");
        }
        batches = batches != null ? batches : warmup == 0 ? 1 : 10;
        return new BenchOptions(agent, jdk, transports, rounds, calls, batches, warmup, loads, hosts, kernels, resultsDir, timeout);
    }

    /** The columns of every table: stock RMI first, then the agent on each transport. */
    public List<Column> columns() {
        List<Column> columns = new java.util.ArrayList<>();
        columns.add(Column.STOCK);
        transports.forEach(t -> columns.add(Column.agentOn(t)));
        return columns;
    }

    private static List<String> list(String value) {
        return List.of(value.trim().split("\\s*,\\s*"));
    }

    private static int positive(String option, String value) {
        int n = Integer.parseInt(value);
        if (n <= 0) {
            throw new IllegalArgumentException(option + " must be positive, not " + value);
        }
        return n;
    }

    private static List<String> oneOf(String option, List<String> values, List<String> allowed) {
        for (String value : values) {
            if (!allowed.contains(value)) {
                throw new IllegalArgumentException(option + ": " + value + " is none of " + allowed);
            }
        }
        return values;
    }
}
