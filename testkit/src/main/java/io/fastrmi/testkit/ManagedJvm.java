package io.fastrmi.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running JVM started by {@link JvmLauncher}: its output (stdout and stderr, each line whole) is captured line
 * by line, a caller can wait for a line, send lines to its standard input, stop it (SIGTERM, which
 * still dumps a JFR recording) or kill it. {@link #close()} never leaves it running.
 */
public final class ManagedJvm implements AutoCloseable {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static final ScheduledExecutorService REAPER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fastrmi-jvm-reaper");
        t.setDaemon(true);
        return t;
    });

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "fastrmi-jvm-cleanup"));
    }

    private final String name;
    private final Jdk jdk;
    private final List<String> command;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread pump;
    private final Thread errorPump;
    private final ScheduledFuture<?> deadline;
    private volatile boolean killedByTimeLimit;

    ManagedJvm(String name, Jdk jdk, List<String> command, Process process, Duration timeLimit) {
        this.name = name;
        this.jdk = jdk;
        this.command = List.copyOf(command);
        this.process = process;
        LIVE.add(process);
        this.deadline = REAPER.schedule(() -> {
            killedByTimeLimit = true;
            process.destroyForcibly();
        }, timeLimit.toMillis(), TimeUnit.MILLISECONDS);
        // Two pumps, one per stream, so that a line is never cut by the other stream's output
        // (the JVM's warnings on stderr would otherwise land in the middle of stdout's lines).
        this.pump = new Thread(() -> pumpOutput(process.getInputStream()), "fastrmi-jvm-stdout-" + name);
        this.errorPump = new Thread(() -> pumpOutput(process.getErrorStream()), "fastrmi-jvm-stderr-" + name);
        for (Thread thread : List.of(pump, errorPump)) {
            thread.setDaemon(true);
            thread.start();
        }
        process.onExit().thenRun(() -> {
            LIVE.remove(process);
            deadline.cancel(false);
            removeSharedMemoryOf(process.pid());
        });
    }

    public String name() {
        return name;
    }

    public Jdk jdk() {
        return jdk;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** All lines printed so far. */
    public List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /**
     * Waits for the first line (already printed or to come) that {@code pattern} finds, and returns
     * its match. Fails with the JVM's output if the JVM exits first or the time runs out.
     */
    public Matcher awaitLine(Pattern pattern, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        int scanned = 0;
        synchronized (lines) {
            while (true) {
                for (; scanned < lines.size(); scanned++) {
                    Matcher m = pattern.matcher(lines.get(scanned));
                    if (m.find()) {
                        return m;
                    }
                }
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw failure("no line matching /" + pattern + "/ within " + timeout);
                }
                if (!pump.isAlive()) {
                    throw failure("exited (code " + exitCodeOrUnknown() + ") before a line matching /" + pattern + "/");
                }
                try {
                    // In slices: a pump's last notify comes while it is still alive, so its end
                    // would otherwise be seen only when the whole timeout ran out.
                    lines.wait(Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(left))));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw failure("interrupted while waiting for /" + pattern + "/");
                }
            }
        }
    }

    /** Writes one line to the JVM's standard input. */
    public void send(String line) {
        try {
            Writer in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            in.write(line + "\n");
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot write to stdin", e);
        }
    }

    /** Waits for the JVM to exit by itself and returns its exit code; kills it and fails on timeout. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw failure("did not exit within " + timeout);
            }
            joinPumps();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw failure("interrupted while waiting for exit");
        }
        if (killedByTimeLimit) {
            throw failure("killed at its time limit");
        }
        return process.exitValue();
    }

    /**
     * Asks the JVM to stop (SIGTERM: shutdown hooks run and JFR recordings are dumped), and kills it
     * if it is still running after {@code grace}. Returns the exit code.
     */
    public int stop(Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            joinPumps();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        return process.isAlive() ? -1 : process.exitValue();
    }

    private void joinPumps() throws InterruptedException {
        pump.join(TimeUnit.SECONDS.toMillis(10));
        errorPump.join(TimeUnit.SECONDS.toMillis(10));
    }

    /**
     * What the JVM's threads are doing, for a failure report: {@code jcmd Thread.print}, then the
     * native stacks of every thread where gdb is installed. Never throws: a tool that fails says so.
     */
    public String stacks() {
        StringBuilder sb = new StringBuilder();
        sb.append(toolOutput(List.of(jdk.tool("jcmd").toString(), Long.toString(pid()), "Thread.print")));
        Path gdb = Path.of("/usr/bin/gdb");
        if (Files.isExecutable(gdb)) {
            sb.append("\n==== native stacks\n").append(toolOutput(List.of(gdb.toString(), "-p", Long.toString(pid()),
                    "-batch", "-ex", "thread apply all bt")));
        }
        return sb.toString();
    }

    /** What {@code command} printed within a minute (a JVM that cannot reach a safepoint never answers jcmd). */
    private static String toolOutput(List<String> command) {
        Path out = null;
        try {
            out = Files.createTempFile("fastrmi-stacks", ".txt");
            Process tool = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            String ending = "";
            if (!tool.waitFor(60, TimeUnit.SECONDS)) {
                tool.destroyForcibly();
                ending = String.join(" ", command) + ": no answer within 60 s\n";
            }
            return Files.readString(out) + ending;
        } catch (IOException e) {
            return String.join(" ", command) + ": " + e + "\n";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return String.join(" ", command) + ": interrupted\n";
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }

    /** Kills the JVM if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * libfabric's shm regions of a JVM that is gone ("fastrmi-nsNS-PID-R:N:N" in /dev/shm): a JVM unlinks
     * its own at exit, but one that was killed cannot, and tests kill JVMs on purpose (the next JVM's
     * sweep takes them too, but only some seconds later).
     */
    private static void removeSharedMemoryOf(long pid) {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm)) {
            return;
        }
        try (DirectoryStream<Path> regions = Files.newDirectoryStream(shm, "fastrmi-ns*-" + pid + "-*:*:*")) {
            for (Path region : regions) {
                Files.deleteIfExists(region);
            }
        } catch (IOException e) {
            System.err.println("cannot remove the shared memory of dead JVM " + pid + ": " + e);
        }
    }

    /** An exception whose message carries the command and everything the JVM printed. */
    public IllegalStateException failure(String what) {
        StringBuilder sb = new StringBuilder(name).append(" (").append(jdk.home()).append("): ").append(what)
                .append("\ncommand: ").append(String.join(" ", command)).append("\noutput:");
        for (String line : output()) {
            sb.append("\n  | ").append(line);
        }
        return new IllegalStateException(sb.toString());
    }

    private String exitCodeOrUnknown() {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private void pumpOutput(java.io.InputStream stream) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            synchronized (lines) {
                lines.add("[output lost: " + e + "]");
            }
        } finally {
            synchronized (lines) {
                lines.notifyAll();
            }
        }
    }
}
