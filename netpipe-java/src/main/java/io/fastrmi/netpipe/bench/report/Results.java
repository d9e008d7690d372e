package io.fastrmi.netpipe.bench.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleBiFunction;

/** Every cell of every table: per load, column and kernel, the outcomes of all rounds. */
public final class Results {

    /** The kernel whose ratio is the highest (the agent's worst showing) in a column. */
    record Worst(String kernel, double ratio) {
    }

    private final BenchOptions options;
    private final Map<String, Cell> cells = new LinkedHashMap<>();

    public Results(BenchOptions options) {
        this.options = options;
    }

    public BenchOptions options() {
        return options;
    }

    public void add(int round, String load, Column column, Map<String, Outcome> outcomes) {
        outcomes.forEach((kernel, outcome) -> cell(load, column, kernel).add(round, outcome));
    }

    public Cell cell(String load, Column column, String kernel) {
        return cells.computeIfAbsent(load + "\n" + column.name() + "\n" + kernel, key -> new Cell());
    }

    /**
     * The agent column's median over stock's, both over the rounds in which both were timed (so a
     * round that failed on one side does not tilt the ratio); NaN when there is no such round.
     */
    double ratio(String load, Column column, String kernel) {
        return ratioOf(load, column, kernel, Cell::medianOfMedians);
    }

    /** The same ratio for the CPU time per call of both JVMs (NaN when there is no round of both). */
    double cpuRatio(String load, Column column, String kernel) {
        return ratioOf(load, column, kernel, Cell::medianOfCpu);
    }

    private double ratioOf(String load, Column column, String kernel, ToDoubleBiFunction<Cell, Set<Integer>> median) {
        Cell agent = cell(load, column, kernel);
        Cell stock = cell(load, Column.STOCK, kernel);
        Set<Integer> rounds = timedInBoth(agent, stock);
        return median.applyAsDouble(agent, rounds) / median.applyAsDouble(stock, rounds);
    }

    /**
     * The lowest and highest ratio of single rounds (the agent's round median over stock's in the
     * same round): how far one round may be trusted; empty when no round timed both.
     */
    Optional<double[]> roundRatioRange(String load, Column column, String kernel) {
        Cell agent = cell(load, column, kernel);
        Cell stock = cell(load, Column.STOCK, kernel);
        Set<Integer> rounds = timedInBoth(agent, stock);
        double low = Double.POSITIVE_INFINITY;
        double high = Double.NEGATIVE_INFINITY;
        for (int round : rounds) {
            double ratio = agent.medianOfMedians(Set.of(round)) / stock.medianOfMedians(Set.of(round));
            low = Math.min(low, ratio);
            high = Math.max(high, ratio);
        }
        return rounds.isEmpty() ? Optional.empty() : Optional.of(new double[] {low, high});
    }

    private static Set<Integer> timedInBoth(Cell agent, Cell stock) {
        Set<Integer> rounds = new TreeSet<>(agent.timedRounds());
        rounds.retainAll(stock.timedRounds());
        return rounds;
    }

    /** The highest ratio of the column across the kernels, if any kernel has one. */
    Optional<Worst> worst(String load, Column column) {
        Worst worst = null;
        List<String> kernels = options.kernels();
        for (String kernel : kernels) {
            double ratio = ratio(load, column, kernel);
            if (!Double.isNaN(ratio) && (worst == null || ratio > worst.ratio())) {
                worst = new Worst(kernel, ratio);
            }
        }
        return Optional.ofNullable(worst);
    }
}
