package io.fastrmi.netpipe.bench.kernels;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * Waits until JVMs' JIT compilers have settled: none compiled anything for {@link #QUIET_MILLIS}.
 * The client runs every kernel's warm-up once, then waits here before timing any kernel, asking the
 * server's compile time over RMI; a run of first calls makes no call before them, so there the
 * driver waits instead, reading the compiler threads' CPU time ({@link ThreadCosts#compilerNanos}).
 * Without it, a pair's first kernels were timed while the compiler still worked through its
 * queue: the agent's JVM compiles about three times the methods of stock's (2,088 against 664 on a
 * null-call pair), so RMI's own hot methods were compiled later, the compiler threads competed with
 * the calls for the two cores, and the calls' waits saw a crowded machine and blocked. Stock and
 * agent wait alike.
 */
public final class JitSettling {

    static final long QUIET_MILLIS = 300;
    static final long MAX_WAIT_MILLIS = 15_000;
    private static final long POLL_MILLIS = 50;

    private JitSettling() {
    }

    /** This JVM's total JIT compilation time in ms, or -1 where the JVM does not say. */
    public static long compilationMillisOfThisProcess() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /**
     * Returns once the sum of {@code compilationMillis} (or any count that moves only while the JIT
     * compiles) has not moved for {@link #QUIET_MILLIS}, or after {@link #MAX_WAIT_MILLIS}; returns
     * the milliseconds waited. Where a JVM does not report (a sum that stays -1 or below), it
     * returns at once.
     */
    public static long await(LongSupplier compilationMillis) throws InterruptedException {
        return await(compilationMillis, QUIET_MILLIS, MAX_WAIT_MILLIS);
    }

    static long await(LongSupplier compilationMillis, long quietMillis, long maxWaitMillis) throws InterruptedException {
        long start = System.nanoTime();
        long last = compilationMillis.getAsLong();
        if (last < 0) {
            return 0;
        }
        long quietSince = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            long waited = (now - start) / 1_000_000;
            if ((now - quietSince) / 1_000_000 >= quietMillis || waited >= maxWaitMillis) {
                return waited;
            }
            Thread.sleep(POLL_MILLIS);
            long current = compilationMillis.getAsLong();
            if (current != last) {
                last = current;
                quietSince = System.nanoTime();
            }
        }
    }
}
