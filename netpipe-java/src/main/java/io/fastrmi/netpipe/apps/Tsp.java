package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Random;

/**
 * The travelling salesman by branch and bound over {@code n} random cities: a central queue in the
 * coordinator hands out the partial tours 0 → a → b ({@link TspJobs}), one remote call each; a
 * worker searches each job's rest depth first, pruning with the shortest tour known (its own, or the
 * one the job brought), and reports a shorter one when it finds it. The shortest length is the
 * sequential search's whatever the order the jobs went in.
 */
final class Tsp implements ParallelApp {

    private static final long SEED = 0x75b_c171L;
    /** Cities in a job's prefix, city 0 included. */
    private static final int PREFIX = 3;

    private final int n;
    private final int[][] distance;
    /** Each city's shortest edge: what reaching it costs at least (the bound's estimate). */
    private final int[] cheapest;

    Tsp(int n) {
        if (n < PREFIX + 1) {
            throw new IllegalArgumentException("TSP needs " + (PREFIX + 1) + " cities or more: n " + n);
        }
        this.n = n;
        Random random = new Random(SEED);
        int[] x = new int[n];
        int[] y = new int[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextInt(1000);
            y[i] = random.nextInt(1000);
        }
        distance = new int[n][n];
        cheapest = new int[n];
        for (int i = 0; i < n; i++) {
            cheapest[i] = Integer.MAX_VALUE;
            for (int j = 0; j < n; j++) {
                distance[i][j] = (int) Math.round(Math.hypot(x[i] - x[j], y[i] - y[j]));
                if (i != j) {
                    cheapest[i] = Math.min(cheapest[i], distance[i][j]);
                }
            }
        }
    }

    /** The nearest-neighbour tour's length: the first bound, the same everywhere. */
    int greedyLength() {
        boolean[] visited = new boolean[n];
        visited[0] = true;
        int city = 0;
        int length = 0;
        for (int step = 1; step < n; step++) {
            int next = -1;
            for (int j = 0; j < n; j++) {
                if (!visited[j] && (next < 0 || distance[city][j] < distance[city][next])) {
                    next = j;
                }
            }
            visited[next] = true;
            length += distance[city][next];
            city = next;
        }
        return length + distance[city][0];
    }

    /** One depth-first search's state: the best tour it knows. */
    private final class Search {
        int best;
        final boolean[] visited = new boolean[n];

        Search(int bound) {
            best = bound;
        }

        /** Searches every tour that continues from {@code city}, {@code length} so far, {@code left} cities unvisited whose cheapest edges sum to {@code estimate}. */
        void from(int city, int length, int left, int estimate) {
            if (left == 0) {
                best = Math.min(best, length + distance[city][0]);
                return;
            }
            for (int next = 1; next < n; next++) {
                if (!visited[next]) {
                    int through = length + distance[city][next];
                    if (through + estimate - cheapest[next] + cheapest[0] >= best) {
                        continue;
                    }
                    visited[next] = true;
                    from(next, through, left - 1, estimate - cheapest[next]);
                    visited[next] = false;
                }
            }
        }

        /** Searches the rest of the tours that begin with {@code prefix} (city 0 first). */
        void job(int[] prefix) {
            int length = 0;
            int estimate = 0;
            for (int city = 1; city < n; city++) {
                estimate += cheapest[city];
            }
            Arrays.fill(visited, false);
            visited[0] = true;
            for (int k = 1; k < prefix.length; k++) {
                visited[prefix[k]] = true;
                length += distance[prefix[k - 1]][prefix[k]];
                estimate -= cheapest[prefix[k]];
            }
            from(prefix[prefix.length - 1], length, n - prefix.length, estimate);
        }
    }

    /** Every job's prefix, in the order the queue hands them out. */
    Deque<int[]> prefixes() {
        Deque<int[]> prefixes = new ArrayDeque<>();
        for (int a = 1; a < n; a++) {
            for (int b = 1; b < n; b++) {
                if (a != b) {
                    prefixes.add(new int[] {0, a, b});
                }
            }
        }
        return prefixes;
    }

    int sequential() {
        Search search = new Search(greedyLength());
        for (int[] prefix : prefixes()) {
            search.job(prefix);
        }
        return search.best;
    }

    /** The queue, in the coordinator. */
    final class Jobs implements TspJobs {
        private final Deque<int[]> left = prefixes();
        private int best = greedyLength();

        @Override
        public synchronized Job next() {
            int[] prefix = left.poll();
            return prefix == null ? null : new Job(prefix, best);
        }

        @Override
        public synchronized void found(int length) {
            best = Math.min(best, length);
        }

        synchronized int best() {
            return best;
        }
    }

    /** Held here: an exported object only weakly reachable from RMI could be collected. */
    private Jobs jobs;

    @Override
    public void bindServices(Registry registry, int workers) throws Exception {
        jobs = new Jobs();
        registry.rebind(TspJobs.NAME, UnicastRemoteObject.exportObject(jobs, 0));
    }

    @Override
    public Remote newWorkerObject() {
        return new TspWorker() {
        };
    }

    @Override
    public Serializable work(Coordinator.Peers peers, Remote self, Registry coordinator, CommClock clock)
            throws Exception {
        TspJobs queue = clock.call(() -> (TspJobs) coordinator.lookup(TspJobs.NAME));
        int best = Integer.MAX_VALUE;
        TspJobs.Job job;
        while ((job = clock.call(queue::next)) != null) {
            int bound = Math.min(best, job.bound());
            Search search = new Search(bound);
            search.job(job.prefix());
            best = search.best;
            if (best < bound) {
                int found = best;
                clock.call(() -> {
                    queue.found(found);
                    return null;
                });
            }
        }
        return best;
    }

    @Override
    public String check(List<Serializable> parts) {
        int expected = sequential();
        int best = Math.min(jobs.best(), parts.stream().mapToInt(p -> (Integer) p).min().orElse(Integer.MAX_VALUE));
        return best == expected ? null : "shortest tour " + best + ", the sequential search's " + expected;
    }
}
