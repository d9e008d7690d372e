package io.fastrmi.netpipe.np;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * NetPIPE's method over an {@link Exchange}: JIT warm-up first (that many exchanges of the first size,
 * whose time also seeds the plan), then for each size {@code trials} trials of as many exchanges as the
 * {@link RepeatPlan} says, keeping the best trial. A point whose time exceeds {@code stopSeconds} ends
 * the sweep, as NetPIPE's STOPTM does. Progress goes to {@code progress} (stderr), a line per point.
 */
public final class Sweep {

    private final Exchange exchange;
    private final RepeatPlan plan;
    private final int trials;
    private final int warmup;
    private final double stopSeconds;
    private final PrintStream progress;

    public Sweep(Exchange exchange, RepeatPlan plan, int trials, int warmup, double stopSeconds, PrintStream progress) {
        if (trials < 1 || warmup < 0 || !(stopSeconds > 0)) {
            throw new IllegalArgumentException("a sweep needs trials >= 1, warmup >= 0 and stopSeconds > 0");
        }
        this.exchange = exchange;
        this.plan = plan;
        this.trials = trials;
        this.warmup = warmup;
        this.stopSeconds = stopSeconds;
        this.progress = progress;
    }

    /** Measures each size (those that carry the same bytes once) and hands each point to {@code sink} as it comes. */
    public List<Point> run(List<Integer> sizes, Consumer<Point> sink) throws Exception {
        Set<Integer> bytes = new LinkedHashSet<>();
        List<Integer> distinct = new ArrayList<>();
        for (int size : sizes) {
            if (bytes.add(exchange.bytesFor(size))) {
                distinct.add(size);
            }
        }
        List<Point> points = new ArrayList<>();
        if (distinct.isEmpty()) {
            return points;
        }
        int previousSize = distinct.get(0);
        double previousRoundTrip = warmUp(previousSize);
        for (int n = 0; n < distinct.size(); n++) {
            int size = distinct.get(n);
            int repeats = plan.repeats(size, previousSize, previousRoundTrip);
            double[] trialSeconds = new double[trials];
            for (int t = 0; t < trials; t++) {
                trialSeconds[t] = exchange.run(size, repeats) / 1e9 / repeats;
            }
            Point point = new Point(exchange.bytesFor(size), repeats, trialSeconds, exchange.oneWay());
            points.add(point);
            sink.accept(point);
            progress.printf(Locale.ROOT, "%3d: %9d bytes %7d times --> %10.2f Mbps in %10.2f usec%n", n, point.bytes(),
                    repeats, point.mbps(), point.seconds() * 1e6);
            previousSize = size;
            previousRoundTrip = point.bestRoundTripSeconds();
            if (point.seconds() > stopSeconds) {
                progress.printf(Locale.ROOT, "stopping: a point took %.3f s, over %.3f s%n", point.seconds(), stopSeconds);
                break;
            }
        }
        return points;
    }

    /** Runs the warm-up and returns the mean time of its last tenth (at least one exchange), in seconds. */
    private double warmUp(int size) throws Exception {
        int tail = Math.max(1, warmup / 10);
        if (warmup > tail) {
            progress.printf(Locale.ROOT, "%s: warming up with %d exchanges of %d bytes%n", exchange.describe(), warmup,
                    exchange.bytesFor(size));
            exchange.run(size, warmup - tail);
        }
        return exchange.run(size, tail) / 1e9 / tail;
    }
}
