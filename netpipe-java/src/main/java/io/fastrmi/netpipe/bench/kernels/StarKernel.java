package io.fastrmi.netpipe.bench.kernels;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many client threads calling {@code echo(int)} at once on one stub, as a busy client's threads
 * would: RMI then opens a connection per concurrent call. Every thread makes the given number of
 * calls; the latencies of all threads' calls are pooled for the p99.
 *
 * <p>Its typical call is not the median of those: spinning threads that hold both cores make the
 * calls of whichever threads run fast while the others wait for a core between their calls, outside
 * the timed region. So it is the wall time of the timed phases divided by one thread's calls: the
 * mean time a call takes for each of the threads, waits for the CPU included.
 */
public final class StarKernel implements Kernel {

    /** Keeps each thread's values apart, so a reply meant for another thread would show. */
    private static final int VALUES_PER_THREAD = 100_000_000;

    private final String name;
    private final int threads;
    private final BenchService service;
    private final AtomicLong timedStart = new AtomicLong();
    private final AtomicLong timedEnd = new AtomicLong();
    /**
     * The calling threads, kept from one run to the next (daemons: the client exits without closing
     * kernels), so they are alive at both of the caller's looks at what the JVM spent (ThreadCosts)
     * and their calls' own CPU is counted, not only RMI's threads'.
     */
    private ExecutorService pool;
    /** The wall time of all timed phases so far, and one thread's calls in them. */
    private long timedWallNanos;
    private long timedCallsPerThread;

    StarKernel(String name, int threads, BenchService service) {
        this.name = name;
        this.threads = threads;
        this.service = service;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long[] run(int warmup, int calls) throws Exception {
        timedStart.set(0);
        timedEnd.set(0);
        long[][] perThread = new long[threads][calls];
        // Warm-up apart, the threads start their timed calls together, so they really overlap.
        CyclicBarrier start = new CyclicBarrier(threads);
        if (pool == null) {
            pool = Executors.newFixedThreadPool(threads, task -> {
                Thread thread = new Thread(task, name + "-caller");
                thread.setDaemon(true);
                return thread;
            });
        }
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                workers.add(pool.submit(() -> {
                    try {
                        work(thread, warmup, start, perThread[thread]);
                    } catch (Exception | Error e) {
                        start.reset(); // the others must not wait at the barrier for this one
                        throw e;
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                try {
                    worker.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
        } catch (Exception | Error e) {
            pool.shutdownNow(); // a failed run's threads may still be in calls: the next run gets new ones
            pool = null;
            throw e;
        }
        if (calls > 0) {
            timedWallNanos += timedEnd.get() - timedStart.get();
            timedCallsPerThread += calls;
        }
        long[] all = new long[threads * calls];
        for (int t = 0; t < threads; t++) {
            System.arraycopy(perThread[t], 0, all, t * calls, calls);
        }
        return all;
    }

    private void work(int thread, int warmup, CyclicBarrier start, long[] nanos) throws Exception {
        int base = thread * VALUES_PER_THREAD;
        for (int i = 0; i < warmup; i++) {
            check(base + i % VALUES_PER_THREAD, service.echo(base + i % VALUES_PER_THREAD));
        }
        start.await();
        timedStart.compareAndSet(0, System.nanoTime());
        for (int i = 0; i < nanos.length; i++) {
            int value = base + i % VALUES_PER_THREAD;
            long begin = System.nanoTime();
            int result = service.echo(value);
            nanos[i] = System.nanoTime() - begin;
            check(value, result);
        }
        timedEnd.accumulateAndGet(System.nanoTime(), Math::max);
    }

    /** Over all timed runs (the driver's batches of this kernel). */
    @Override
    public double typicalMicros(Latencies latencies) {
        return timedWallNanos / 1000.0 / timedCallsPerThread;
    }

    private void check(int sent, int result) {
        WrongResultException.expect(result == sent, () -> name + ": echo(" + sent + ") returned " + result);
    }
}
