package io.fastrmi.netpipe.bench.kernels;

/** One kind of call the client times. */
public interface Kernel {

    String name();

    /** How many calls this kernel makes when asked for {@code n} (the bulk kernel makes fewer). */
    default int scaled(int n) {
        return n;
    }

    /**
     * Makes {@code warmup} untimed calls, then {@code calls} timed ones, and returns each timed
     * call's duration in nanoseconds. Every result is checked: a wrong one throws
     * {@link WrongResultException}.
     */
    long[] run(int warmup, int calls) throws Exception;

    /**
     * The figure that stands for the kernel's typical call, in microseconds, given all its timed
     * calls so far: by default their median. A kernel of many threads answers otherwise.
     */
    default double typicalMicros(Latencies latencies) {
        return latencies.medianMicros();
    }
}
