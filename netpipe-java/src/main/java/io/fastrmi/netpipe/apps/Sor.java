package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.Registry;
import java.util.Arrays;
import java.util.List;

/**
 * Red/black successive over-relaxation of an {@code n}×{@code n} grid (fixed edges), a fixed number
 * of iterations: the interior rows split in blocks over the workers; after each half-step (one
 * colour) every worker sends its first and last row to the neighbours that hold the rows beside
 * them, and waits for theirs. Red/black makes each cell's update read only cells of the other
 * colour, so the parallel grid equals the sequential one bit for bit.
 */
final class Sor implements ParallelApp {

    private static final double OMEGA = 1.25;

    /** A worker's rows: {@code rows[k]} is grid row {@code first + k}. */
    record Part(int first, double[][] rows) implements RowBlock<double[]> {
        private static final long serialVersionUID = 1L;
    }

    private final int n;
    private final int iterations;

    Sor(int n, int iterations) {
        if (n < 3 || iterations < 1) {
            throw new IllegalArgumentException("SOR needs n >= 3 and an iteration: n " + n + ", iterations " + iterations);
        }
        this.n = n;
        this.iterations = iterations;
    }

    /** The starting grid: a hot top edge, a cold bottom one, sides that go from one to the other. */
    double initial(int i, int j) {
        if (i == 0) {
            return 1.0;
        }
        if (i == n - 1) {
            return 0.0;
        }
        return j == 0 || j == n - 1 ? 1.0 - (double) i / (n - 1) : 0.0;
    }

    /** Updates the cells of {@code colour} in row {@code row} of a grid whose rows above and below are {@code up} and {@code down}. */
    private void relaxRow(double[] up, double[] row, double[] down, int i, int colour) {
        for (int j = 1 + ((i + 1 + colour) & 1); j < n - 1; j += 2) {
            row[j] += OMEGA * ((up[j] + down[j] + row[j - 1] + row[j + 1]) * 0.25 - row[j]);
        }
    }

    double[][] sequential() {
        double[][] grid = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                grid[i][j] = initial(i, j);
            }
        }
        for (int step = 0; step < 2 * iterations; step++) {
            for (int i = 1; i < n - 1; i++) {
                relaxRow(grid[i - 1], grid[i], grid[i + 1], i, step & 1);
            }
        }
        return grid;
    }

    /** What the workers call: the neighbours' boundary rows, by step and side. */
    static final class Boundaries implements SorWorker {
        final Mailbox<double[]> rows = new Mailbox<>();

        @Override
        public void boundary(int step, int fromRank, double[] row) {
            rows.put(tag(step, fromRank), row);
        }

        static long tag(int step, int fromRank) {
            return ((long) step << 32) | fromRank;
        }
    }

    @Override
    public Remote newWorkerObject() {
        return new Boundaries();
    }

    @Override
    public Serializable work(Coordinator.Peers peers, Remote self, Registry coordinator, CommClock clock)
            throws Exception {
        int rank = peers.rank();
        int workers = peers.workers().size();
        if (workers > n - 2) {
            throw new IllegalArgumentException("SOR of n " + n + " has " + (n - 2) + " rows for " + workers + " workers");
        }
        int first = 1 + ParallelApp.blockStart(n - 2, workers, rank);
        int end = 1 + ParallelApp.blockStart(n - 2, workers, rank + 1);
        // local[k] is grid row first - 1 + k: the owned rows with a neighbour's (or the edge's) row on each side.
        double[][] local = new double[end - first + 2][n];
        for (int k = 0; k < local.length; k++) {
            for (int j = 0; j < n; j++) {
                local[k][j] = initial(first - 1 + k, j);
            }
        }
        SorWorker up = rank > 0 ? (SorWorker) peers.workers().get(rank - 1) : null;
        SorWorker down = rank < workers - 1 ? (SorWorker) peers.workers().get(rank + 1) : null;
        Mailbox<double[]> inbox = ((Boundaries) self).rows;
        int last = local.length - 2;
        for (int step = 0; step < 2 * iterations; step++) {
            for (int k = 1; k <= last; k++) {
                relaxRow(local[k - 1], local[k], local[k + 1], first - 1 + k, step & 1);
            }
            int s = step;
            if (up != null) {
                double[] row = local[1];
                clock.call(() -> {
                    up.boundary(s, rank, row);
                    return null;
                });
            }
            if (down != null) {
                double[] row = local[last];
                clock.call(() -> {
                    down.boundary(s, rank, row);
                    return null;
                });
            }
            if (up != null) {
                local[0] = clock.waiting(() -> inbox.take(Boundaries.tag(s, rank - 1)));
            }
            if (down != null) {
                local[last + 1] = clock.waiting(() -> inbox.take(Boundaries.tag(s, rank + 1)));
            }
        }
        return new Part(first, Arrays.copyOfRange(local, 1, last + 1));
    }

    @Override
    public String check(List<Serializable> parts) {
        double[][] expected = sequential();
        return RowBlock.check(parts, 1, n - 1, i -> expected[i], Arrays::equals); // bit for bit
    }
}
