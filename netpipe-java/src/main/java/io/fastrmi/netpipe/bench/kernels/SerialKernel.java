package io.fastrmi.netpipe.bench.kernels;

import java.util.function.IntUnaryOperator;

/**
 * A kernel of one thread: each call timed on its own with {@link System#nanoTime()}; the check of its
 * result comes after the second reading, outside the timed span. A paced kernel works for a while
 * before each call (think time, untimed): the server's thread then waits longer than any spin. An
 * idle kernel sleeps instead, milliseconds, as a job between phases: both ends' threads are asleep
 * when the call comes, and RMI pings a pooled connection before it reuses it after such a pause.
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
    private final long sleepMillis;

    public SerialKernel(String name, IntUnaryOperator scale, Call<T> call, Check<T> check) {
        this(name, scale, 0, 0, call, check);
    }

    /** {@code thinkNanos}: how long the client works (on its core, not asleep) before each call. */
    public SerialKernel(String name, IntUnaryOperator scale, long thinkNanos, Call<T> call, Check<T> check) {
        this(name, scale, thinkNanos, 0, call, check);
    }

    private SerialKernel(String name, IntUnaryOperator scale, long thinkNanos, long sleepMillis, Call<T> call,
            Check<T> check) {
        this.name = name;
        this.scale = scale;
        this.thinkNanos = thinkNanos;
        this.sleepMillis = sleepMillis;
        this.call = call;
        this.check = check;
    }

    /** A kernel whose client sleeps {@code sleepMillis} before each call (untimed). */
    public static <T> SerialKernel<T> idle(String name, IntUnaryOperator scale, long sleepMillis, Call<T> call,
            Check<T> check) {
        return new SerialKernel<>(name, scale, 0, sleepMillis, call, check);
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

    /** Work of {@link #thinkNanos}, as a job computes between calls, or a sleep of {@link #sleepMillis}. */
    private void think() throws InterruptedException {
        if (sleepMillis > 0) {
            Thread.sleep(sleepMillis);
        }
        if (thinkNanos == 0) {
            return;
        }
        long until = System.nanoTime() + thinkNanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
