package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.Registry;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * N bodies under gravity, all pairs, stepped {@code steps} times: the bodies split in blocks over
 * the workers; at each step every worker sends its block, an array of {@link Body} records, to
 * every other worker, then moves its own bodies by the pull of all. What it shows that SOR, ASP and
 * TSP do not: object graphs on the wire (hundreds of small objects per call, each with its class),
 * where the others send primitive arrays or a few numbers. Each body's pull is summed over all
 * bodies in the same order as the sequential run, so the parallel result equals it bit for bit.
 */
final class NBody implements ParallelApp {

    private static final long SEED = 0x5eed_b0d1L;
    private static final double DT = 1e-3;
    /** Keeps close encounters finite. */
    private static final double SOFTENING = 1e-2;

    /** A body: where it is, how it moves, its mass. */
    record Body(double x, double y, double z, double vx, double vy, double vz, double mass) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** A worker's bodies after the last step: {@code rows[k]} is body {@code first + k}. */
    record Part(int first, Body[] rows) implements RowBlock<Body> {
        private static final long serialVersionUID = 1L;
    }

    private final int n;
    private final int steps;

    NBody(int n, int steps) {
        if (n < 2 || steps < 1) {
            throw new IllegalArgumentException("N-body needs 2 bodies and a step: n " + n + ", steps " + steps);
        }
        this.n = n;
        this.steps = steps;
    }

    /** The bodies at the start: the same in every JVM. */
    Body[] initial() {
        SplittableRandom random = new SplittableRandom(SEED);
        Body[] bodies = new Body[n];
        for (int i = 0; i < n; i++) {
            bodies[i] = new Body(random.nextDouble(-1, 1), random.nextDouble(-1, 1), random.nextDouble(-1, 1),
                    random.nextDouble(-0.1, 0.1), random.nextDouble(-0.1, 0.1), random.nextDouble(-0.1, 0.1),
                    random.nextDouble(0.5, 1.5) / n);
        }
        return bodies;
    }

    /** Body {@code i} one step on, pulled by all of {@code bodies} (summed in index order). */
    static Body advance(Body[] bodies, int i) {
        Body b = bodies[i];
        double ax = 0;
        double ay = 0;
        double az = 0;
        for (int j = 0; j < bodies.length; j++) {
            if (j == i) {
                continue;
            }
            Body o = bodies[j];
            double dx = o.x - b.x;
            double dy = o.y - b.y;
            double dz = o.z - b.z;
            double d2 = dx * dx + dy * dy + dz * dz + SOFTENING;
            double pull = o.mass / (d2 * Math.sqrt(d2));
            ax += dx * pull;
            ay += dy * pull;
            az += dz * pull;
        }
        double vx = b.vx + DT * ax;
        double vy = b.vy + DT * ay;
        double vz = b.vz + DT * az;
        return new Body(b.x + DT * vx, b.y + DT * vy, b.z + DT * vz, vx, vy, vz, b.mass);
    }

    Body[] sequential() {
        Body[] bodies = initial();
        for (int step = 0; step < steps; step++) {
            Body[] next = new Body[n];
            for (int i = 0; i < n; i++) {
                next[i] = advance(bodies, i);
            }
            bodies = next;
        }
        return bodies;
    }

    /** What the workers call: blocks as their holders send them, by step and sender. */
    static final class Blocks implements NBodyWorker {
        final Mailbox<Body[]> blocks = new Mailbox<>();

        @Override
        public void bodies(int step, int sender, Body[] bodies) {
            blocks.put(tag(step, sender), bodies);
        }
    }

    private static long tag(int step, int sender) {
        return (long) step << 32 | sender;
    }

    @Override
    public Remote newWorkerObject() {
        return new Blocks();
    }

    @Override
    public Serializable work(Coordinator.Peers peers, Remote self, Registry coordinator, CommClock clock)
            throws Exception {
        int rank = peers.rank();
        int workers = peers.workers().size();
        ParallelApp.Block block = ParallelApp.blockOf(n, peers, "bodies");
        int first = block.first();
        int end = block.end();
        Mailbox<Body[]> inbox = ((Blocks) self).blocks;
        Body[] all = initial();
        for (int step = 0; step < steps; step++) {
            Body[] mine = Arrays.copyOfRange(all, first, end);
            for (int w = 0; w < workers; w++) {
                if (w != rank) {
                    NBodyWorker other = (NBodyWorker) peers.workers().get(w);
                    int s = step;
                    clock.call(() -> {
                        other.bodies(s, rank, mine);
                        return null;
                    });
                }
            }
            for (int w = 0; w < workers; w++) {
                if (w != rank) {
                    long tag = tag(step, w);
                    Body[] theirs = clock.waiting(() -> inbox.take(tag));
                    int from = ParallelApp.blockStart(n, workers, w);
                    if (theirs.length != ParallelApp.blockStart(n, workers, w + 1) - from) {
                        throw new IllegalStateException("worker " + w + " sent " + theirs.length + " bodies at step " + step);
                    }
                    System.arraycopy(theirs, 0, all, from, theirs.length);
                }
            }
            Body[] next = new Body[end - first];
            for (int i = first; i < end; i++) {
                next[i - first] = advance(all, i);
            }
            System.arraycopy(next, 0, all, first, next.length);
        }
        return new Part(first, Arrays.copyOfRange(all, first, end));
    }

    @Override
    public String check(List<Serializable> parts) {
        Body[] expected = sequential();
        return RowBlock.check(parts, 0, n, i -> expected[i], Body::equals);
    }
}
