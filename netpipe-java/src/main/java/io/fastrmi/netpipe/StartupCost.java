package io.fastrmi.netpipe;

import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * What the agent adds to JVM start-up: a JVM that prints one line and exits, started N times without
 * an agent, N times with an empty one and N times with FastRMI's, in turn so that drift on a shared
 * machine hits all three the same; prints the median wall time (process start to exit) of each, what
 * FastRMI's agent adds, and what it adds beyond the empty agent (the JVM's own cost of any
 * {@code -javaagent}, which FastRMI cannot change). With
 * {@code --config FILE} the agent reads that config (a user's job has one), else its built-in one.
 *
 * <p>Usage: {@code StartupCost --agent fastrmi-agent.jar [--config FILE] [--jdk HOME]... [--runs N]}
 */
public final class StartupCost {

    private StartupCost() {
    }

    /** An agent that does nothing: what any {@code -javaagent} costs. */
    public static final class EmptyAgent {
        private EmptyAgent() {
        }

        public static void premain(String argument, Instrumentation inst) {
            // nothing: the JVM's own work for an agent is what is measured
        }
    }

    /** The JVM measured: it does nothing but print. */
    public static final class Hello {
        public static void main(String[] args) {
            System.out.println("hello");
        }
    }

    public static void main(String[] args) {
        StartupOptions options = StartupOptions.parse(args,
                "StartupCost --agent fastrmi-agent.jar [--config FILE] [--jdk HOME]... [--runs N]", 15, false);
        Path agent = options.agent();
        Path config = options.config();
        List<Jdk> jdks = options.jdks();
        int runs = options.runs();
        System.out.printf(Locale.ROOT, "JVM start-up to exit, median of %d runs each, in turn (ms); agent config: %s%n", runs,
                config == null ? "built-in" : config);
        Path empty = emptyAgentJar();
        System.out.printf(Locale.ROOT, "%-14s %10s %12s %10s %10s %14s%n", "JDK", "stock", "empty agent", "agent", "added",
                "beyond empty");
        for (Jdk jdk : jdks) {
            double[] stock = new double[runs];
            double[] withEmpty = new double[runs];
            double[] withAgent = new double[runs];
            startMillis(jdk, null, null);
            startMillis(jdk, empty, null);
            startMillis(jdk, agent, config);
            for (int i = 0; i < runs; i++) {
                stock[i] = startMillis(jdk, null, null);
                withEmpty[i] = startMillis(jdk, empty, null);
                withAgent[i] = startMillis(jdk, agent, config);
            }
            double stockMedian = median(stock);
            double emptyMedian = median(withEmpty);
            double agentMedian = median(withAgent);
            System.out.printf(Locale.ROOT, "%-14s %10.1f %12.1f %10.1f %10.1f %14.1f%n", jdk.version(), stockMedian,
                    emptyMedian, agentMedian, agentMedian - stockMedian, agentMedian - emptyMedian);
        }
    }

    /** A jar holding {@link EmptyAgent} as its premain class, in a temporary folder removed at exit. */
    private static Path emptyAgentJar() {
        try {
            Path dir = Files.createTempDirectory("startup-cost-");
            Path jar = dir.resolve("empty-agent.jar");
            Manifest manifest = new Manifest();
            manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            manifest.getMainAttributes().putValue("Premain-Class", EmptyAgent.class.getName());
            String entry = EmptyAgent.class.getName().replace('.', '/') + ".class";
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                    InputStream in = EmptyAgent.class.getClassLoader().getResourceAsStream(entry)) {
                out.putNextEntry(new JarEntry(entry));
                in.transferTo(out);
                out.closeEntry();
            }
            jar.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the empty agent's jar", e);
        }
    }

    private static double startMillis(Jdk jdk, Path agent, Path config) {
        long start = System.nanoTime();
        try (ManagedJvm jvm = launcher(jdk, "startup", agent, config).classpathOf(Hello.class)
                .main(Hello.class).start()) {
            awaitCleanExit(jvm);
        }
        return (System.nanoTime() - start) / 1e6;
    }

    /** A JVM on {@code jdk}, under {@code agent} (null: none) with {@code config} (null: the built-in one). */
    static JvmLauncher launcher(Jdk jdk, String name, Path agent, Path config) {
        JvmLauncher launcher = JvmLauncher.on(jdk).name(name);
        if (agent != null) {
            launcher = config == null ? launcher.agent(agent) : launcher.agent(agent, "config=" + config);
        }
        return launcher;
    }

    /** Waits for a measured JVM's exit; fails if it failed, or if its agent turned itself off. */
    static void awaitCleanExit(ManagedJvm jvm) {
        if (jvm.awaitExit(Duration.ofMinutes(1)) != 0) {
            throw jvm.failure("failed");
        }
        if (jvm.output().stream().anyMatch(line -> line.contains("FastRMI is OFF"))) {
            throw jvm.failure("the agent did not start"); // it would measure an agent that does nothing
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
