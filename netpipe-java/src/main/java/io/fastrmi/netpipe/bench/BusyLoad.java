package io.fastrmi.netpipe.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A busy machine: threads of normal priority spinning on arithmetic, one per processor, so the
 * benchmark's JVMs compete for the cores as they would on a loaded server (a spinning transport
 * then costs what it really costs). Closing stops them.
 */
public final class BusyLoad implements AutoCloseable {

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stop;
    /** Where each thread's result goes, so the JIT cannot drop the arithmetic. */
    @SuppressWarnings("unused")
    private volatile long sink;

    private BusyLoad() {
    }

    public static BusyLoad none() {
        return new BusyLoad();
    }

    public static BusyLoad start(int count) {
        BusyLoad load = new BusyLoad();
        for (int i = 0; i < count; i++) {
            Thread thread = new Thread(load::spin, "bench-busy-" + i);
            thread.setDaemon(true);
            load.threads.add(thread);
            thread.start();
        }
        return load;
    }

    private void spin() {
        long x = System.nanoTime();
        while (!stop) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L; // an LCG step: cheap, not foldable
            }
        }
        sink = x;
    }

    @Override
    public void close() {
        stop = true;
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
