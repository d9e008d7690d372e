package io.fastrmi.netpipe.bench;

import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * Runs one server/client pair of one column: starts a {@link BenchServer}, runs a {@link BenchClient}
 * against it, and returns each kernel's {@link Outcome}. For an agent column it then checks that the
 * transport was really used (else the outcomes are n/a). Never throws: what goes wrong becomes the
 * kernels' error.
 */
final class PairRunner {

    private static final Duration START_LIMIT = Duration.ofSeconds(60);
    private static final Duration QUIT_LIMIT = Duration.ofSeconds(30);

    private final BenchOptions options;
    private final Hosts hosts;
    private final Path workDir;
    private final Path jfrSettings;

    PairRunner(BenchOptions options, Hosts hosts, Path workDir) throws IOException {
        this.options = options;
        this.hosts = hosts;
        this.workDir = workDir;
        this.jfrSettings = Files.writeString(workDir.resolve("handshakes.jfc"), HandshakeCheck.SETTINGS);
    }

    /**
     * {@code tag} names this run's files (config, recordings). Each round starts with another kernel:
     * the first kernel of a pair runs while the scheduler still settles where the two JVMs' threads
     * go (here it was 2-3x slower or faster than the same kernel run later), so no kernel always pays it.
     */
    Map<String, Outcome> run(Column column, String tag, int round) {
        Path serverJfr = workDir.resolve(tag + "-server.jfr");
        Path clientJfr = workDir.resolve(tag + "-client.jfr");
        List<String> logs = new ArrayList<>();
        try {
            Map<String, Outcome> outcomes;
            try {
                Path config = column.withAgent() ? writeConfig(column, tag) : null;
                outcomes = runPair(column, config, serverJfr, clientJfr, logs, kernelOrder(round));
            } catch (RuntimeException | IOException e) {
                System.err.println("[" + tag + "] failed: " + e.getMessage());
                outcomes = allFailed(firstLine(e.getMessage()));
            }
            if (column.withAgent()) {
                markUnavailable(column, outcomes, logs, List.of(serverJfr, clientJfr));
            }
            return outcomes;
        } finally {
            deleteQuietly(serverJfr);
            deleteQuietly(clientJfr);
        }
    }

    /**
     * A transport the agent said it could not open makes the whole run n/a (its failures included:
     * they are the transport's); one that was not used on every connection makes its timings n/a.
     */
    private static void markUnavailable(Column column, Map<String, Outcome> outcomes, List<String> logs,
            List<Path> recordings) {
        Optional<String> unavailable = unavailableIn(logs);
        if (unavailable.isPresent()) {
            outcomes.replaceAll((kernel, outcome) -> Outcome.unavailable(unavailable.get()));
            return;
        }
        HandshakeCheck.problem(column.transport(), recordings).ifPresent(notFast ->
                outcomes.replaceAll((kernel, outcome) -> outcome.isTimed() ? Outcome.unavailable(notFast) : outcome));
    }

    private Path writeConfig(Column column, String tag) throws IOException {
        return Files.write(workDir.resolve(tag + ".conf"), column.configLines(hosts.insideSection()));
    }

    /** The kernels, rotated to start with the round's own. */
    private List<String> kernelOrder(int round) {
        List<String> order = new ArrayList<>(options.kernels());
        Collections.rotate(order, -((round - 1) % order.size()));
        return order;
    }

    private Map<String, Outcome> runPair(Column column, Path config, Path serverJfr, Path clientJfr, List<String> logs,
            List<String> kernels) {
        try (ManagedJvm server = hosts.server(launcher(column, "server", config, serverJfr))
                .classpathOf(BenchServer.class).main(BenchServer.class).args(hosts.serverArgs()).start()) {
            try {
                String port = server.awaitLine(BenchServer.READY, START_LIMIT).group(1);
                return runClient(column, config, clientJfr, port, logs, kernels);
            } finally {
                quit(server);
                logs.addAll(server.output());
            }
        }
    }

    private Map<String, Outcome> runClient(Column column, Path config, Path clientJfr, String port, List<String> logs,
            List<String> kernels) {
        List<String> args = List.of(hosts.serverAddress(), port, "--kernels", String.join(",", kernels),
                "--calls", String.valueOf(options.calls()), "--warmup", String.valueOf(options.warmup()));
        try (ManagedJvm client = hosts.client(launcher(column, "client", config, clientJfr))
                .classpathOf(BenchClient.class).main(BenchClient.class).args(args).start()) {
            String ending;
            try {
                int exit = client.awaitExit(options.timeout());
                ending = "the client exited with " + exit + firstException(client.output());
                if (exit != 0) {
                    System.err.println(client.failure("exited with " + exit).getMessage());
                }
            } catch (IllegalStateException e) {
                ending = "the client did not finish within " + options.timeout().toSeconds() + " s and was killed";
                System.err.println(e.getMessage());
            }
            logs.addAll(client.output());
            return parse(client.output(), ending);
        }
    }

    /** The client's KERNEL and FAILED lines; a kernel with neither failed with {@code ending}. */
    private Map<String, Outcome> parse(List<String> output, String ending) {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        for (String line : output) {
            Matcher timed = BenchClient.KERNEL.matcher(line);
            Matcher failed = BenchClient.FAILED.matcher(line);
            if (timed.matches()) {
                outcomes.put(timed.group(1), Outcome.timed(Double.parseDouble(timed.group(2)),
                        Double.parseDouble(timed.group(3)), Integer.parseInt(timed.group(4)),
                        Double.parseDouble(timed.group(5)), Double.parseDouble(timed.group(6))));
            } else if (failed.matches()) {
                outcomes.put(failed.group(1), Outcome.failed(failed.group(2)));
            }
        }
        for (String kernel : options.kernels()) {
            outcomes.putIfAbsent(kernel, Outcome.failed("no result: " + ending));
        }
        return outcomes;
    }

    private JvmLauncher launcher(Column column, String role, Path config, Path jfr) {
        // Stock JVMs record too, so both sides of a ratio pay the same (small) JFR cost.
        JvmLauncher jvm = JvmLauncher.on(options.jdk()).name(column.name() + "-" + role).timeLimit(options.timeout())
                .jvmArgs("-XX:StartFlightRecording=dumponexit=true,filename=" + jfr + ",settings=" + jfrSettings);
        if (!column.withAgent()) {
            return jvm;
        }
        return jvm.agent(column.agentJar().orElse(options.agent()), "config=" + config).jvmArgs("--enable-native-access=ALL-UNNAMED");
    }

    /** Asks the server to exit, so that it dumps its recording; kills it if it does not. */
    private static void quit(ManagedJvm server) {
        if (!server.isAlive()) {
            return;
        }
        try {
            server.send("quit");
            server.awaitExit(QUIT_LIMIT);
        } catch (RuntimeException e) {
            server.stop(Duration.ofSeconds(10));
        }
    }

    /** The agent's own word that the transport could not be had, as Demo reads it. */
    private static Optional<String> unavailableIn(List<String> logs) {
        return logs.stream().filter(l -> l.contains("is not available") || l.contains("cannot open"))
                .map(String::trim).findFirst();
    }

    /** ": " and the first line that names an exception, if any: what stopped a client that printed nothing. */
    private static String firstException(List<String> output) {
        return output.stream().filter(l -> l.contains("Exception") || l.contains("Error:")).findFirst()
                .map(l -> ": " + l.trim()).orElse("");
    }

    private Map<String, Outcome> allFailed(String error) {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        options.kernels().forEach(kernel -> outcomes.put(kernel, Outcome.failed(error)));
        return outcomes;
    }

    static String firstLine(String message) {
        return message == null ? "(no message)" : message.lines().findFirst().orElse(message);
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a leftover recording in the temporary folder
        }
    }
}
