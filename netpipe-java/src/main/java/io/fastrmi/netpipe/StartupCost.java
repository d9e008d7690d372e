package io.fastrmi.netpipe;

import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What the agent adds to JVM start-up: a JVM that prints one line and exits, started N times without
 * and N times with the agent, alternating so that drift on a shared machine hits both the same;
 * prints the median wall time (process start to exit) of each and the difference. With
 * {@code --config FILE} the agent reads that config (a user's job has one), else its built-in one.
 *
 * <p>Usage: {@code StartupCost --agent fastrmi-agent.jar [--config FILE] [--jdk HOME]... [--runs N]}
 */
public final class StartupCost {

    private StartupCost() {
    }

    /** The JVM measured: it does nothing but print. */
    public static final class Hello {
        public static void main(String[] args) {
            System.out.println("hello");
        }
    }

    public static void main(String[] args) {
        Path agent = null;
        Path config = null;
        List<Jdk> jdks = new ArrayList<>();
        int runs = 15;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--agent" -> agent = Path.of(args[i + 1]);
                case "--jdk" -> jdks.add(Jdk.at(Path.of(args[i + 1]))
                        .orElseThrow(() -> new IllegalArgumentException("not a JDK: " + args[1])));
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--config" -> config = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (agent == null || args.length % 2 != 0) {
            System.err.println("usage: StartupCost --agent fastrmi-agent.jar [--config FILE] [--jdk HOME]... [--runs N]");
            System.exit(2);
        }
        if (jdks.isEmpty()) {
            jdks.add(Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow());
        }
        System.out.printf(Locale.ROOT, "JVM start-up to exit, median of %d runs each, alternating (ms); agent config: %s%n", runs,
                config == null ? "built-in" : config);
        System.out.printf(Locale.ROOT, "%-14s %10s %10s %10s%n", "JDK", "stock", "agent", "added");
        for (Jdk jdk : jdks) {
            double[] stock = new double[runs];
            double[] withAgent = new double[runs];
            startMillis(jdk, null, null);
            startMillis(jdk, agent, config);
            for (int i = 0; i < runs; i++) {
                stock[i] = startMillis(jdk, null, null);
                withAgent[i] = startMillis(jdk, agent, config);
            }
            double stockMedian = median(stock);
            double agentMedian = median(withAgent);
            System.out.printf(Locale.ROOT, "%-14s %10.1f %10.1f %10.1f%n", jdk.version(), stockMedian, agentMedian,
                    agentMedian - stockMedian);
        }
    }

    private static double startMillis(Jdk jdk, Path agent, Path config) {
        long start = System.nanoTime();
        JvmLauncher launcher = JvmLauncher.on(jdk).name("startup");
        if (agent != null) {
            launcher = config == null ? launcher.agent(agent) : launcher.agent(agent, "config=" + config);
        }
        try (ManagedJvm jvm = launcher.classpathOf(Hello.class)
                .main(Hello.class).start()) {
            if (jvm.awaitExit(Duration.ofMinutes(1)) != 0) {
                throw jvm.failure("failed");
            }
            if (jvm.output().stream().anyMatch(line -> line.contains("FastRMI is OFF"))) {
                throw jvm.failure("the agent did not start"); // it would measure an agent that does nothing
            }
        }
        return (System.nanoTime() - start) / 1e6;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
