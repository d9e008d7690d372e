package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.Registry;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * All-pairs shortest paths (Floyd–Warshall) of a complete directed graph of {@code n} nodes with
 * random weights: the rows of the distance matrix split in blocks over the workers; at iteration
 * {@code k} the worker that holds row {@code k} sends it to every other worker, and each updates its
 * rows with it. Integer distances: the parallel matrix equals the sequential one exactly.
 */
final class Asp implements ParallelApp {

    private static final long SEED = 0x5eed_a5b1L;
    private static final int MAX_WEIGHT = 1000;

    /** A worker's rows: {@code rows[k]} is row {@code first + k}. */
    record Part(int first, int[][] rows) implements RowBlock<int[]> {
        private static final long serialVersionUID = 1L;
    }

    private final int n;

    Asp(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("ASP needs a node: n " + n);
        }
        this.n = n;
    }

    /** Row {@code i} of the weights: the same in every JVM (a generator per row). */
    int[] weights(int i) {
        SplittableRandom random = new SplittableRandom(SEED + i);
        int[] row = new int[n];
        for (int j = 0; j < n; j++) {
            row[j] = i == j ? 0 : 1 + random.nextInt(MAX_WEIGHT);
        }
        return row;
    }

    private static void relax(int[] row, int[] rowK, int k) {
        int viaK = row[k];
        for (int j = 0; j < row.length; j++) {
            int through = viaK + rowK[j];
            if (through < row[j]) {
                row[j] = through;
            }
        }
    }

    int[][] sequential() {
        int[][] d = new int[n][];
        for (int i = 0; i < n; i++) {
            d[i] = weights(i);
        }
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < n; i++) {
                relax(d[i], d[k], k);
            }
        }
        return d;
    }

    /** What the workers call: rows as their holders send them, by iteration. */
    static final class Rows implements AspWorker {
        final Mailbox<int[]> rows = new Mailbox<>();

        @Override
        public void row(int k, int[] row) {
            rows.put(k, row);
        }
    }

    @Override
    public Remote newWorkerObject() {
        return new Rows();
    }

    @Override
    public Serializable work(Coordinator.Peers peers, Remote self, Registry coordinator, CommClock clock)
            throws Exception {
        int rank = peers.rank();
        int workers = peers.workers().size();
        ParallelApp.Block block = ParallelApp.blockOf(n, peers, "rows of ASP");
        int first = block.first();
        int end = block.end();
        int[][] mine = new int[end - first][];
        for (int i = first; i < end; i++) {
            mine[i - first] = weights(i);
        }
        Mailbox<int[]> inbox = ((Rows) self).rows;
        int holder = 0;
        for (int k = 0; k < n; k++) {
            while (k >= ParallelApp.blockStart(n, workers, holder + 1)) {
                holder++;
            }
            int[] rowK;
            if (holder == rank) {
                rowK = mine[k - first]; // row k does not change in iteration k: its distance to k is 0
                for (int w = 0; w < workers; w++) {
                    if (w != rank) {
                        AspWorker other = (AspWorker) peers.workers().get(w);
                        int kk = k;
                        int[] row = rowK;
                        clock.call(() -> {
                            other.row(kk, row);
                            return null;
                        });
                    }
                }
            } else {
                int kk = k;
                rowK = clock.waiting(() -> inbox.take(kk));
            }
            for (int[] row : mine) {
                relax(row, rowK, k);
            }
        }
        return new Part(first, mine);
    }

    @Override
    public String check(List<Serializable> parts) {
        int[][] expected = sequential();
        return RowBlock.check(parts, 0, n, i -> expected[i], Arrays::equals);
    }
}
