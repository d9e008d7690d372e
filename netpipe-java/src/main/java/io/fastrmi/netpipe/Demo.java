package io.fastrmi.netpipe;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo: the sample RMI application run without the agent and then with it on both ends, once
 * per transport (a config file that lists it first, then tcp), same JDK, same machine, one after
 * the other; prints each method's mean round trip side by side, and its ratio to stock RMI, and
 * checks that every run gave the same answers.
 *
 * Each of the R rounds runs all of them, in turn, and the best (lowest) mean of each is kept, since
 * these machines are shared and noisy.
 *
 * <p>Usage: {@code Demo --agent fastrmi-agent.jar [--jdk HOME] [--calls N] [--rounds R]
 * [--transports tcp,ucx:shm,...] [--spin 20us]} (default transports: the built-in config's choice
 * only; --spin: the config's spin for every agent column)
 */
public final class Demo {

    private static final Pattern TIME = Pattern.compile("^TIME (\\S+) ([0-9.]+)$");

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        Path agent = null;
        Jdk jdk = Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow();
        int calls = 2000;
        int rounds = 3;
        List<String> transports = List.of(BUILT_IN);
        String spin = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--agent" -> agent = Path.of(args[i + 1]);
                case "--jdk" -> jdk = Jdk.at(Path.of(args[i + 1]))
                        .orElseThrow(() -> new IllegalArgumentException("not a JDK: " + args[1]));
                case "--calls" -> calls = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--transports" -> transports = List.of(args[i + 1].split("\\s*,\\s*"));
                case "--spin" -> spin = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (agent == null || args.length % 2 != 0) {
            System.err.println("usage: Demo --agent fastrmi-agent.jar [--jdk HOME] [--calls N] [--rounds R]"
                    + " [--transports tcp,ucx:shm,...] [--spin 20us]");
            System.exit(2);
        }
        System.out.printf(Locale.ROOT, "FastRMI demo: the sample RMI application on JDK %s, %d calls per method"
                + " (echo: %d), mean round trip in microseconds, best of %d rounds%n", jdk.version(), calls,
                Math.max(1, calls / 10), rounds);
        Path configs = Files.createTempDirectory("fastrmi-demo");
        Run stock = null;
        Map<String, Run> withAgent = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            stock = best(stock, run(jdk, null, null, calls));
            for (String transport : transports) {
                withAgent.put(transport, best(withAgent.get(transport),
                        run(jdk, agent, configFor(configs, transport, spin), calls)));
            }
        }
        printTable(stock, withAgent);
        List<String> stockTranscript = stock.transcript();
        boolean same = withAgent.values().stream().allMatch(run -> run.transcript().equals(stockTranscript));
        System.out.println("answers identical with and without the agent: " + (same ? "yes" : "NO"));
        if (!same) {
            System.out.println("stock: " + stockTranscript);
            withAgent.forEach((transport, run) -> System.out.println(transport + ": " + run.transcript()));
            System.exit(1);
        }
    }

    /** The column of the agent with its built-in config (no file). */
    private static final String BUILT_IN = "built-in";

    private record Transport(String name, Path config) {
    }

    /** The config for one column: none for the built-in one; {@code spin} (null: the default) either way. */
    private static Transport configFor(Path dir, String transport, String spin) throws java.io.IOException {
        String spinLine = spin == null ? "" : "spin = " + spin;
        if (transport.equals(BUILT_IN) && spin == null) {
            return new Transport(transport, null);
        }
        Path config = dir.resolve(transport.replaceAll("[^A-Za-z0-9_.-]", "_") + ".conf");
        // Every optimization, as the built-in config's [host local] has them: the lean format.
        Files.write(config, transport.equals(BUILT_IN) ? List.of(spinLine, "[host local]", "optimize = on", "optimizations = all")
                : List.of(spinLine, "[host local]", "optimize = on", "optimizations = all", "transports = " + transport + ", tcp"));
        return new Transport(transport, config);
    }

    private static void printTable(Run stock, Map<String, Run> withAgent) {
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-22s %12s", "method", "stock RMI"));
        withAgent.keySet().forEach(t -> header.append(String.format(Locale.ROOT, " %16s", t)));
        System.out.println(header);
        for (Map.Entry<String, Double> entry : stock.micros().entrySet()) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-22s %12.2f", entry.getKey(), entry.getValue()));
            for (Run run : withAgent.values()) {
                Double micros = run.micros().get(entry.getKey());
                row.append(String.format(Locale.ROOT, " %8.2f (%4.2fx)", micros, micros / entry.getValue()));
            }
            System.out.println(row);
        }
        withAgent.forEach((transport, run) -> {
            if (!run.notes().isEmpty()) {
                System.out.println(transport + ": " + String.join("; ", run.notes()));
            }
        });
    }

    /** The client's answers, its timings, and what the agent said of its transports. */
    private record Run(List<String> transcript, Map<String, Double> micros, List<String> notes) {
    }

    /** Per method the lower mean; the transcripts must agree. */
    private static Run best(Run kept, Run next) {
        if (kept == null) {
            return next;
        }
        if (!kept.transcript().equals(next.transcript())) {
            throw new IllegalStateException("two runs of the same JVMs gave different answers:\n"
                    + kept.transcript() + "\n" + next.transcript());
        }
        Map<String, Double> micros = new LinkedHashMap<>(kept.micros());
        next.micros().forEach((method, value) -> micros.merge(method, value, Math::min));
        List<String> notes = new ArrayList<>(kept.notes());
        next.notes().stream().filter(n -> !notes.contains(n)).forEach(notes::add);
        return new Run(kept.transcript(), micros, notes);
    }

    private static Run run(Jdk jdk, Path agent, Transport transport, int calls) {
        String label = agent == null ? "stock" : "agent";
        try (ManagedJvm server = launcher(jdk, agent, transport).name(label + "-server")
                .classpathOf(SampleServer.class).main(SampleServer.class).start()) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = launcher(jdk, agent, transport).name(label + "-client")
                    .classpathOf(SampleClient.class).main(SampleClient.class)
                    .args("localhost", port, "--time", String.valueOf(calls)).start()) {
                if (client.awaitExit(Duration.ofMinutes(5)) != 0) {
                    throw client.failure("client failed");
                }
                List<String> transcript = new ArrayList<>();
                Map<String, Double> micros = new LinkedHashMap<>();
                List<String> notes = new ArrayList<>();
                for (String line : client.output()) {
                    Matcher time = TIME.matcher(line);
                    if (time.matches()) {
                        micros.put(time.group(1), Double.parseDouble(time.group(2)));
                    } else if (line.startsWith("CALL ")) {
                        transcript.add(line);
                    } else if (line.contains("is not available") || line.contains("cannot open")) {
                        notes.add(line.trim());
                    }
                }
                return new Run(transcript, micros, notes);
            } finally {
                server.stop(Duration.ofSeconds(10));
            }
        }
    }

    private static JvmLauncher launcher(Jdk jdk, Path agent, Transport transport) {
        JvmLauncher jvm = JvmLauncher.on(jdk);
        if (agent == null) {
            return jvm;
        }
        return jvm.agent(agent, transport.config() == null ? null : "config=" + transport.config())
                .jvmArgs("--enable-native-access=ALL-UNNAMED");
    }
}
