package io.fastrmi.netpipe.bench;

import io.fastrmi.netpipe.bench.report.BenchOptions;
import io.fastrmi.netpipe.bench.report.Column;
import io.fastrmi.netpipe.bench.report.Outcome;
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
 * Opens one column's server/client pair ({@link LivePair}): starts a {@link BenchServer} and a
 * {@link BenchClient} against it, which warms up and then runs the batches the driver asks for
 * ({@link Batches}); at the end it reports each kernel's {@link Outcome}. For an agent column it then
 * checks that the transport was really used (else the outcomes are n/a). Never throws: what goes
 * wrong becomes the kernels' error.
 */
public final class PairRunner {

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
     * {@code tag} names this pair's files (config, recordings). Returns once the client has warmed up,
     * or with the pair broken (its kernels then fail with why).
     */
    LivePair open(Column column, String tag) {
        LivePair pair = new LivePair(column, tag);
        pair.start();
        return pair;
    }

    /** The kernels, rotated to start with the round's own (no kernel always runs first on fresh JVMs). */
    static List<String> kernelOrder(List<String> kernels, int round) {
        List<String> order = new ArrayList<>(kernels);
        Collections.rotate(order, -((round - 1) % order.size()));
        return order;
    }

    /** One column's server and client JVMs, alive between the driver's batches. */
    final class LivePair {
        private final Column column;
        private final String tag;
        private final Path serverJfr;
        private final Path clientJfr;
        private final List<String> logs = new ArrayList<>();
        private ManagedJvm server;
        private ManagedJvm client;
        private List<String> clientOutput = List.of();
        private long seq;
        /** Why the pair broke (the client or server died, or did not answer in time); null while it works. */
        private String broken;

        private LivePair(Column column, String tag) {
            this.column = column;
            this.tag = tag;
            this.serverJfr = workDir.resolve(tag + "-server.jfr");
            this.clientJfr = workDir.resolve(tag + "-client.jfr");
        }

        Column column() {
            return column;
        }

        /** The process ids of the pair's live JVMs, server and client. */
        List<Long> pids() {
            List<Long> pids = new ArrayList<>();
            for (ManagedJvm jvm : new ManagedJvm[] {server, client}) {
                if (jvm != null && jvm.isAlive()) {
                    pids.add(jvm.pid());
                }
            }
            return pids;
        }

        private void start() {
            try {
                Path config = column.withAgent() ? writeConfig(column, tag) : null;
                server = hosts.server(launcher(column, "server", config, serverJfr))
                        .classpathOf(BenchServer.class).main(BenchServer.class).args(hosts.serverArgs()).start();
                String port = server.awaitLine(BenchServer.READY, START_LIMIT).group(1);
                List<String> args = List.of(hosts.serverAddress(), port, "--kernels", String.join(",", options.kernels()),
                        "--calls", String.valueOf(options.calls()), "--warmup", String.valueOf(options.warmup()));
                client = hosts.client(launcher(column, "client", config, clientJfr))
                        .classpathOf(BenchClient.class).main(BenchClient.class).args(args).start();
                client.awaitLine(BenchClient.READY, options.timeout());
            } catch (RuntimeException | IOException e) {
                breakWith("did not start: " + firstLine(e.getMessage()), e);
            }
        }

        /** Batch {@code index} of {@code of} of {@code kernel}; nothing once the pair is broken. */
        void batch(String kernel, int index, int of) {
            ask(Batches.Command.batch(++seq, kernel, index, of));
        }

        /**
         * Asks for the report, ends both JVMs (so they dump their recordings), and returns each
         * kernel's outcome, n/a where the transport was not really used.
         */
        Map<String, Outcome> finish() {
            try {
                ask(Batches.Command.report(++seq));
                String ending = broken != null ? broken : endClient();
                close();
                Map<String, Outcome> outcomes = parse(clientOutput, ending);
                if (column.withAgent()) {
                    markUnavailable(column, outcomes, logs, List.of(serverJfr, clientJfr));
                }
                return outcomes;
            } finally {
                deleteQuietly(serverJfr);
                deleteQuietly(clientJfr);
            }
        }

        private void ask(Batches.Command command) {
            if (broken != null) {
                return;
            }
            try {
                client.send(command.line());
                client.awaitLine(Batches.donePattern(command.seq()), options.timeout());
            } catch (RuntimeException e) {
                breakWith("the client did not finish '" + command.line() + "' within " + options.timeout().toSeconds()
                        + " s: " + firstLine(e.getMessage()), e);
            }
        }

        /** How the client ended, after its report. */
        private String endClient() {
            try {
                client.send(Batches.Command.quit().line());
                int exit = client.awaitExit(QUIT_LIMIT);
                if (exit != 0) {
                    System.err.println(client.failure("exited with " + exit).getMessage());
                }
                return "the client exited with " + exit + firstException(client.output());
            } catch (RuntimeException e) {
                return "the client did not exit: " + firstLine(e.getMessage());
            }
        }

        private void breakWith(String why, Exception e) {
            broken = why;
            System.err.println("[" + tag + "] " + why);
            if (e.getMessage() != null && !e.getMessage().equals(firstLine(e.getMessage()))) {
                System.err.println(e.getMessage());
            }
            close();
        }

        /** Ends what still runs (the server asked first, so it dumps its recording); keeps the JVMs' output. */
        void close() {
            if (client != null) {
                client.close();
                clientOutput = client.output();
                logs.addAll(clientOutput);
                client = null;
            }
            if (server != null) {
                quit(server);
                server.close();
                logs.addAll(server.output());
                server = null;
            }
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

    public static String firstLine(String message) {
        return message == null ? "(no message)" : message.lines().findFirst().orElse(message);
    }

    public static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a leftover recording in the temporary folder
        }
    }
}
