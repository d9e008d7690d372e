package io.fastrmi.netpipe.apps;

/**
 * A worker's account of its time: what it spent in remote calls and in waits for other workers'
 * data (communication), against its whole run. One thread per worker computes and calls; the
 * remote objects' threads only hand data over.
 */
final class CommClock {

    /** A remote call or a wait, timed. */
    interface Step<T, E extends Exception> {
        T run() throws E;
    }

    private final long start = System.nanoTime();
    private long commNanos;
    private long calls;

    /** Runs {@code step} (a remote call), counting its time as communication. */
    <T, E extends Exception> T call(Step<T, E> step) throws E {
        calls++;
        return waiting(step);
    }

    /** Runs {@code step} (a wait for data another worker sends), counting its time as communication. */
    <T, E extends Exception> T waiting(Step<T, E> step) throws E {
        long begin = System.nanoTime();
        try {
            return step.run();
        } finally {
            commNanos += System.nanoTime() - begin;
        }
    }

    Coordinator.Times times() {
        return new Coordinator.Times(System.nanoTime() - start, commNanos, calls);
    }
}
