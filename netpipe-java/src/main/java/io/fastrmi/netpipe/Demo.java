package io.fastrmi.netpipe;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
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
 * The demo: the sample RMI application run without the agent and then with it on both ends, same
 * JDK, same machine, one after the other; prints each method's mean round trip side by side and
 * checks that both runs gave the same answers.
 *
 * Each of the R rounds runs both, alternating, and the best (lowest) mean of each is kept, since
 * these machines are shared and noisy.
 *
 * <p>Usage: {@code Demo --agent fastrmi-agent.jar [--jdk HOME] [--calls N] [--rounds R]}
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
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--agent" -> agent = Path.of(args[i + 1]);
                case "--jdk" -> jdk = Jdk.at(Path.of(args[i + 1]))
                        .orElseThrow(() -> new IllegalArgumentException("not a JDK: " + args[1]));
                case "--calls" -> calls = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (agent == null || args.length % 2 != 0) {
            System.err.println("usage: Demo --agent fastrmi-agent.jar [--jdk HOME] [--calls N] [--rounds R]");
            System.exit(2);
        }
        System.out.printf(Locale.ROOT, "FastRMI demo: the sample RMI application on JDK %s, %d calls per method"
                + " (echo: %d), mean round trip in microseconds, best of %d rounds%n", jdk.version(), calls,
                Math.max(1, calls / 10), rounds);
        Run stock = null;
        Run withAgent = null;
        for (int round = 0; round < rounds; round++) {
            stock = best(stock, run(jdk, null, calls));
            withAgent = best(withAgent, run(jdk, agent, calls));
        }
        System.out.printf(Locale.ROOT, "%-22s %12s %12s %12s%n", "method", "stock RMI", "with agent", "agent/stock");
        for (Map.Entry<String, Double> entry : stock.micros().entrySet()) {
            Double agentMicros = withAgent.micros().get(entry.getKey());
            System.out.printf(Locale.ROOT, "%-22s %12.2f %12.2f %12.2f%n", entry.getKey(), entry.getValue(),
                    agentMicros, agentMicros / entry.getValue());
        }
        boolean same = stock.transcript().equals(withAgent.transcript());
        System.out.println("answers identical with and without the agent: " + (same ? "yes" : "NO"));
        if (!same) {
            System.out.println("stock: " + stock.transcript());
            System.out.println("agent: " + withAgent.transcript());
            System.exit(1);
        }
    }

    private record Run(List<String> transcript, Map<String, Double> micros) {
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
        return new Run(kept.transcript(), micros);
    }

    private static Run run(Jdk jdk, Path agent, int calls) {
        String label = agent == null ? "stock" : "agent";
        try (ManagedJvm server = JvmLauncher.on(jdk).name(label + "-server").agent(agent)
                .classpathOf(SampleServer.class).main(SampleServer.class).start()) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = JvmLauncher.on(jdk).name(label + "-client").agent(agent)
                    .classpathOf(SampleClient.class).main(SampleClient.class)
                    .args("localhost", port, "--time", String.valueOf(calls)).start()) {
                if (client.awaitExit(Duration.ofMinutes(5)) != 0) {
                    throw client.failure("client failed");
                }
                List<String> transcript = new ArrayList<>();
                Map<String, Double> micros = new LinkedHashMap<>();
                for (String line : client.output()) {
                    Matcher time = TIME.matcher(line);
                    if (time.matches()) {
                        micros.put(time.group(1), Double.parseDouble(time.group(2)));
                    } else if (line.startsWith("CALL ")) {
                        transcript.add(line);
                    }
                }
                return new Run(transcript, micros);
            } finally {
                server.stop(Duration.ofSeconds(10));
            }
        }
    }
}
