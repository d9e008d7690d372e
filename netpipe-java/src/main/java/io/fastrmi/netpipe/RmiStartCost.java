package io.fastrmi.netpipe;

import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * What starting RMI costs a JVM in CPU, without the agent and with it: a JVM that exports an object
 * and calls it once through RMI (a connection to itself, which the agent negotiates: the weaving of
 * RMI's classes, the runtime, the native library), then idles. Its process CPU up to that call's
 * return, and in the idle seconds after it (the JIT compiling what the start made hot, which in a
 * parallel job lands in the first calls), started N times each way in turn; prints the medians.
 * The agent is measured twice: as a JVM after the first on this JDK starts (RMI's classes woven by
 * an earlier JVM, taken from the user's folder), and as the first one (a temporary folder of its
 * own, so it weaves them). Beside the CPU, the wall time from the process's start to that call's
 * return (to the 10 ms the system's process start time has), where what the agent waits for shows
 * that costs no CPU. {@code make startup} runs it after {@link StartupCost}.
 *
 * <p>Usage: {@code RmiStartCost --agent fastrmi-agent.jar [--config FILE] [--jdk HOME]... [--runs N] [--idle-ms N]}
 */
public final class RmiStartCost {

    private RmiStartCost() {
    }

    /** The object the measured JVM calls. */
    public interface Ping extends Remote {
        int ping(int x) throws RemoteException;
    }

    static final class Pinger implements Ping {
        @Override
        public int ping(int x) {
            return x + 1;
        }
    }

    /**
     * The JVM measured: prints {@code CPU <ms to the call's return> <ms in the idle time after>
     * <wall ms from the process's start to the call's return>}.
     */
    public static final class Measured {
        /** Held here: an exported object only weakly reachable from RMI could be collected. */
        private static final Pinger PINGER = new Pinger();

        public static void main(String[] args) throws Exception {
            Ping stub = (Ping) UnicastRemoteObject.exportObject(PINGER, 0);
            if (stub.ping(41) != 42) {
                throw new IllegalStateException("the call answered wrongly");
            }
            Duration atCall = cpu();
            Duration wall = Duration.between(ProcessHandle.current().info().startInstant()
                    .orElseThrow(() -> new IllegalStateException("this OS gives no process start time")), java.time.Instant.now());
            Thread.sleep(Long.parseLong(args[0]));
            Duration after = cpu();
            System.out.printf(Locale.ROOT, "CPU %d %d %d%n", atCall.toMillis(), after.minus(atCall).toMillis(), wall.toMillis());
            System.exit(0);
        }

        private static Duration cpu() {
            return ProcessHandle.current().info().totalCpuDuration()
                    .orElseThrow(() -> new IllegalStateException("this OS gives no process CPU time"));
        }
    }

    public static void main(String[] args) {
        StartupOptions options = StartupOptions.parse(args,
                "RmiStartCost --agent fastrmi-agent.jar [--config FILE] [--jdk HOME]... [--runs N] [--idle-ms N]", 7, true);
        Path agent = options.agent();
        Path config = options.config();
        long idleMillis = options.idleMillis();
        int runs = options.runs();
        List<Jdk> jdks = options.jdks();
        System.out.printf(Locale.ROOT, "CPU of a JVM that starts RMI and makes one call (ms of process CPU, median of %d runs "
                + "each, in turn); agent config: %s%n", runs, config == null ? "built-in" : config);
        System.out.printf(Locale.ROOT, "%-14s %14s %14s %8s %14s %8s %20s %20s %8s %12s %12s%n", "JDK", "stock to call", "agent to call",
                "added", "first JVM", "added", "stock idle " + idleMillis + " ms", "agent idle " + idleMillis + " ms", "added",
                "stock wall", "agent wall");
        for (Jdk jdk : jdks) {
            double[][] stock = new double[3][runs];
            double[][] withAgent = new double[3][runs];
            double[] first = new double[runs];
            for (int i = 0; i < runs; i++) {
                long[] s = cpuMillis(jdk, null, config, idleMillis, false);
                long[] a = cpuMillis(jdk, agent, config, idleMillis, false);
                first[i] = cpuMillis(jdk, agent, config, idleMillis, true)[0];
                for (int k = 0; k < 3; k++) {
                    stock[k][i] = s[k];
                    withAgent[k][i] = a[k];
                }
            }
            double[] s = {StartupCost.median(stock[0]), StartupCost.median(stock[1]), StartupCost.median(stock[2])};
            double[] a = {StartupCost.median(withAgent[0]), StartupCost.median(withAgent[1]), StartupCost.median(withAgent[2])};
            double f = StartupCost.median(first);
            System.out.printf(Locale.ROOT, "%-14s %14.0f %14.0f %8.0f %14.0f %8.0f %20.0f %20.0f %8.0f %12.0f %12.0f%n", jdk.version(),
                    s[0], a[0], a[0] - s[0], f, f - s[0], s[1], a[1], a[1] - s[1], s[2], a[2]);
        }
    }

    /**
     * The measured JVM's two CPU figures and its wall time to the call, under {@code agent} (null: none); {@code firstJvm}: with
     * temporary files of its own, so that it finds no classes woven by a JVM before it.
     */
    private static long[] cpuMillis(Jdk jdk, Path agent, Path config, long idleMillis, boolean firstJvm) {
        Path tmp = null;
        try {
            JvmLauncher launcher = StartupCost.launcher(jdk, "rmi-start", agent, config);
            if (firstJvm) {
                tmp = Files.createTempDirectory("rmi-start-first-");
                launcher.jvmArgs("-Djava.io.tmpdir=" + tmp);
            }
            try (ManagedJvm jvm = launcher.classpathOf(Measured.class).main(Measured.class).args(Long.toString(idleMillis))
                    .start()) {
                StartupCost.awaitCleanExit(jvm);
                String[] cpu = jvm.output().stream().filter(line -> line.startsWith("CPU ")).findFirst()
                        .orElseThrow(() -> jvm.failure("no CPU line")).split(" ");
                return new long[] {Long.parseLong(cpu[1]), Long.parseLong(cpu[2]), Long.parseLong(cpu[3])};
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (tmp != null) {
                deleteTree(tmp);
            }
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + root, e);
        }
    }
}
