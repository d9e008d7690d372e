package io.fastrmi.netpipe.bench.kernels;

import java.util.function.IntUnaryOperator;

/**
 * A kernel of one thread: each call timed on its own with {@link System#nanoTime()}; the check of its
 * result comes after the second reading, outside the timed span. A paced kernel works for a while
 * before each call (think time, untimed): the server's thread then waits longer than any spin.
 */
public final class SerialKernel<T> implements Kernel {

    /** The call; {@code i} numbers it, for calls that send a different value each time. */
    @FunctionalInterface
    public interface Call<T> {
        T call(int i) throws Exception;
    }

    /** Throws {@link WrongResultException} when call {@code i} returned the wrong {@code result}. */
    @FunctionalInterface
    public interface Check<T> {
        void check(int i, T result);
    }

    private final String name;
    private final IntUnaryOperator scale;
    private final Call<T> call;
    private final Check<T> check;
    private final long thinkNanos;

    public SerialKernel(String name, IntUnaryOperator scale, Call<T> call, Check<T> check) {
        this(name, scale, 0, call, check);
    }

    /** {@code thinkNanos}: how long the client works (on its core, not asleep) before each call. */
    public SerialKernel(String name, IntUnaryOperator scale, long thinkNanos, Call<T> call, Check<T> check) {
        this.name = name;
        this.scale = scale;
        this.thinkNanos = thinkNanos;
        this.call = call;
        this.check = check;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int scaled(int n) {
        return scale.applyAsInt(n);
    }

    @Override
    public long[] run(int warmup, int calls) throws Exception {
        for (int i = 0; i < warmup; i++) {
            think();
            check.check(i, call.call(i));
        }
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            think();
            long start = System.nanoTime();
            T result = call.call(i);
            nanos[i] = System.nanoTime() - start;
            check.check(i, result);
        }
        return nanos;
    }

    /** Work of {@link #thinkNanos}, as a job computes between calls. */
    private void think() {
        if (thinkNanos == 0) {
            return;
        }
        long until = System.nanoTime() + thinkNanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
