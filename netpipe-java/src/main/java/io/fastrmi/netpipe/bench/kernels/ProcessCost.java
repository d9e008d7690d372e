package io.fastrmi.netpipe.bench.kernels;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a JVM's threads have spent so far: time on a CPU, and how many times they were put on one
 * (each after a sleep or a preemption), from {@code /proc/self/task/TID/schedstat} (nanoseconds,
 * exact). The JIT compiler's threads are left out: they finish warm-up's work in the background,
 * which is not what a call costs. Taken before and after a kernel's timed calls in the client and the
 * server, the difference per call is the call's cost: unlike its latency, it does not depend on where
 * the scheduler happens to put the two JVMs' threads, so it tells two transports apart on a noisy
 * machine where their latencies cannot. Threads that end meanwhile are not counted. Also the bytes
 * its live threads have allocated on the heap so far.
 */
public record ProcessCost(long cpuNanos, long switches, long allocatedBytes) {

    private static final Path TASKS = Path.of("/proc/self/task");
    private static final List<String> NOT_COUNTED = List.of("C1 CompilerThre", "C2 CompilerThre");

    /** This JVM's; zero where there is no {@code /proc} (not Linux). */
    public static ProcessCost ofThisProcess() {
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long allocated = 0;
        for (long bytes : mx.getThreadAllocatedBytes(mx.getAllThreadIds())) {
            allocated += Math.max(0, bytes);
        }
        try (Stream<Path> tasks = Files.list(TASKS)) {
            ProcessCost threads = tasks.map(ProcessCost::ofThread).reduce(new ProcessCost(0, 0, 0), ProcessCost::plus);
            return new ProcessCost(threads.cpuNanos, threads.switches, allocated);
        } catch (IOException | UncheckedIOException e) {
            return new ProcessCost(0, 0, allocated);
        }
    }

    public static ProcessCost of(long[] fields) {
        return new ProcessCost(fields[0], fields[1], fields[2]);
    }

    public long[] toArray() {
        return new long[] {cpuNanos, switches, allocatedBytes};
    }

    public ProcessCost since(ProcessCost before) {
        return new ProcessCost(cpuNanos - before.cpuNanos, switches - before.switches, allocatedBytes - before.allocatedBytes);
    }

    public ProcessCost plus(ProcessCost other) {
        return new ProcessCost(cpuNanos + other.cpuNanos, switches + other.switches, allocatedBytes + other.allocatedBytes);
    }

    /** "run_ns wait_ns timeslices" of one thread; nothing for a compiler thread or one that ended. */
    private static ProcessCost ofThread(Path task) {
        try {
            String name = Files.readString(task.resolve("comm")).strip();
            if (NOT_COUNTED.stream().anyMatch(name::startsWith)) {
                return new ProcessCost(0, 0, 0);
            }
            String[] fields = Files.readString(task.resolve("schedstat")).strip().split(" ");
            return new ProcessCost(Long.parseLong(fields[0]), Long.parseLong(fields[2]), 0);
        } catch (IOException | RuntimeException e) {
            return new ProcessCost(0, 0, 0);
        }
    }
}
