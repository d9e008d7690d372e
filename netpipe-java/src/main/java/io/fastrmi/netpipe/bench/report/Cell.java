package io.fastrmi.netpipe.bench.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/** One kernel of one column under one load: its outcome in each round, and their medians. */
public final class Cell {

    private final SortedMap<Integer, Outcome> byRound = new TreeMap<>();

    void add(int round, Outcome outcome) {
        byRound.put(round, outcome);
    }

    public Map<Integer, Outcome> rounds() {
        return Collections.unmodifiableSortedMap(byRound);
    }

    /** The rounds that gave timings. */
    Set<Integer> timedRounds() {
        Set<Integer> rounds = new TreeSet<>();
        byRound.forEach((round, outcome) -> {
            if (outcome.isTimed()) {
                rounds.add(round);
            }
        });
        return rounds;
    }

    /** The median of the rounds' medians, over {@code rounds} (NaN when none). */
    double medianOfMedians(Collection<Integer> rounds) {
        return medianOf(rounds, Outcome::medianMicros);
    }

    /** The median of the rounds' 99th percentiles, over {@code rounds} (NaN when none). */
    double medianOfP99s(Collection<Integer> rounds) {
        return medianOf(rounds, Outcome::p99Micros);
    }

    /** The median of the rounds' CPU time per call of both JVMs, over {@code rounds} (NaN when none). */
    double medianOfCpu(Collection<Integer> rounds) {
        return medianOf(rounds, Outcome::cpuMicrosPerCall);
    }

    /** The median of the rounds' context switches per call of both JVMs, over {@code rounds} (NaN when none). */
    double medianOfSwitches(Collection<Integer> rounds) {
        return medianOf(rounds, Outcome::switchesPerCall);
    }

    /** What went wrong in the first round that went wrong; null when every round was timed. */
    String firstProblem() {
        return byRound.values().stream().map(Outcome::problem).filter(p -> p != null).findFirst().orElse(null);
    }

    private double medianOf(Collection<Integer> rounds, ToDoubleFunction<Outcome> value) {
        List<Double> values = new ArrayList<>();
        for (int round : rounds) {
            Outcome outcome = byRound.get(round);
            double v = outcome != null && outcome.isTimed() ? value.applyAsDouble(outcome) : Double.NaN;
            if (!Double.isNaN(v)) {
                values.add(v);
            }
        }
        return median(values);
    }

    /** The median of {@code values}; NaN when there are none. */
    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
