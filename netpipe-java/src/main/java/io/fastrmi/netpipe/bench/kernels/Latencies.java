package io.fastrmi.netpipe.bench.kernels;

import java.util.Arrays;

/** The durations of a kernel's timed calls, summed up as a median and a 99th percentile. */
public final class Latencies {

    private final long[] sortedNanos;

    private Latencies(long[] sortedNanos) {
        this.sortedNanos = sortedNanos;
    }

    /** Takes over {@code nanos} (sorts it in place). */
    public static Latencies of(long[] nanos) {
        if (nanos.length == 0) {
            throw new IllegalArgumentException("no calls were timed");
        }
        Arrays.sort(nanos);
        return new Latencies(nanos);
    }

    public int calls() {
        return sortedNanos.length;
    }

    double medianMicros() {
        return percentileMicros(50);
    }

    public double p99Micros() {
        return percentileMicros(99);
    }

    /** Nearest rank: the smallest duration that at least {@code percent}% of the calls did not exceed. */
    private double percentileMicros(double percent) {
        int rank = (int) Math.ceil(percent / 100 * sortedNanos.length);
        return sortedNanos[Math.max(0, rank - 1)] / 1e3;
    }
}
