package io.fastrmi.netpipe.bench.kernels;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What each live thread of a JVM has spent so far: time on a CPU and how many times it was put on
 * one (each after a sleep or a preemption), from {@code /proc/self/task/TID/schedstat} (nanoseconds,
 * exact), and the bytes it allocated on the heap. The JIT compiler's threads are left out: they
 * finish warm-up's work in the background, which is not what a call costs. Two snapshots give what
 * a kernel's calls cost ({@link #since}), thread by thread, so a thread that ends between them
 * (an RMI connection's, a transport's) takes nothing away from the others' sum.
 */
public final class ThreadCosts {

    private static final Path TASKS = Path.of("/proc/self/task");
    private static final List<String> COMPILER_THREADS = List.of("C1 CompilerThre", "C2 CompilerThre");

    /** By task id: {CPU ns, times put on a CPU}. */
    private final Map<Long, long[]> tasks;
    /** By Java thread id: bytes allocated. */
    private final Map<Long, Long> allocated;

    private ThreadCosts(Map<Long, long[]> tasks, Map<Long, Long> allocated) {
        this.tasks = tasks;
        this.allocated = allocated;
    }

    /** This JVM's; empty where there is no {@code /proc} (not Linux). */
    public static ThreadCosts ofThisProcess() {
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long[] ids = mx.getAllThreadIds();
        long[] bytes = mx.getThreadAllocatedBytes(ids);
        Map<Long, Long> allocated = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                allocated.put(ids[i], bytes[i]);
            }
        }
        Map<Long, long[]> tasks = new HashMap<>();
        try (Stream<Path> all = Files.list(TASKS)) {
            all.forEach(task -> {
                long[] spent = ofTask(task);
                if (spent != null) {
                    tasks.put(Long.parseLong(task.getFileName().toString()), spent);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // No /proc: CPU and switches count nothing.
        }
        return new ThreadCosts(tasks, allocated);
    }

    /**
     * What the threads alive now spent since {@code before}: each one alive then counts its
     * difference, each one born since counts whole, one that ended meanwhile counts nothing.
     */
    public ProcessCost since(ThreadCosts before) {
        long cpu = 0;
        long switches = 0;
        for (Map.Entry<Long, long[]> task : tasks.entrySet()) {
            long[] then = before.tasks.getOrDefault(task.getKey(), new long[2]);
            cpu += Math.max(0, task.getValue()[0] - then[0]);
            switches += Math.max(0, task.getValue()[1] - then[1]);
        }
        long bytes = 0;
        for (Map.Entry<Long, Long> thread : allocated.entrySet()) {
            bytes += Math.max(0, thread.getValue() - before.allocated.getOrDefault(thread.getKey(), 0L));
        }
        return new ProcessCost(cpu, switches, bytes);
    }

    /** As longs, for RMI: the task count, then id, CPU, switches of each; the thread count, then id, bytes of each. */
    public long[] toArray() {
        long[] out = new long[2 + 3 * tasks.size() + 2 * allocated.size()];
        int i = 0;
        out[i++] = tasks.size();
        for (Map.Entry<Long, long[]> task : tasks.entrySet()) {
            out[i++] = task.getKey();
            out[i++] = task.getValue()[0];
            out[i++] = task.getValue()[1];
        }
        out[i++] = allocated.size();
        for (Map.Entry<Long, Long> thread : allocated.entrySet()) {
            out[i++] = thread.getKey();
            out[i++] = thread.getValue();
        }
        return out;
    }

    /** What {@link #toArray} gave (the bench's own server sent it). */
    public static ThreadCosts of(long[] in) {
        int i = 0;
        Map<Long, long[]> tasks = new HashMap<>();
        for (long n = in[i++]; n > 0; n--, i += 3) {
            tasks.put(in[i], new long[] {in[i + 1], in[i + 2]});
        }
        Map<Long, Long> allocated = new HashMap<>();
        for (long n = in[i++]; n > 0; n--, i += 2) {
            allocated.put(in[i], in[i + 1]);
        }
        return new ThreadCosts(tasks, allocated);
    }

    /**
     * The CPU time so far of process {@code pid}'s JIT compiler threads, in ns; -1 where its
     * {@code /proc} cannot be read. It moves only while the JIT compiles ({@link JitSettling}).
     */
    public static long compilerNanos(long pid) {
        long sum = 0;
        try (Stream<Path> all = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) all::iterator) {
                try {
                    if (isCompilerThread(task)) {
                        sum += schedstat(task)[0];
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended while it was read: it compiles no more
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
        return sum;
    }

    /** {CPU ns, times put on a CPU} of one task; null for a compiler thread or one that ended. */
    private static long[] ofTask(Path task) {
        try {
            return isCompilerThread(task) ? null : schedstat(task);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isCompilerThread(Path task) throws IOException {
        String name = Files.readString(task.resolve("comm")).strip();
        return COMPILER_THREADS.stream().anyMatch(name::startsWith);
    }

    /** {CPU ns, times put on a CPU}, from a task's {@code schedstat}. */
    private static long[] schedstat(Path task) throws IOException {
        String[] fields = Files.readString(task.resolve("schedstat")).strip().split(" ");
        return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[2])};
    }
}
