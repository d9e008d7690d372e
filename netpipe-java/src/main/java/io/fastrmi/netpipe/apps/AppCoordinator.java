package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One run's coordinator: a registry on {@code PORT} with the {@link Coordinator} (and the
 * application's own services) bound, then {@code READY}; once every worker has joined it times the
 * run until the last one is done, checks the combined result against the sequential one, and prints
 * {@code WORKER} lines (each worker's time and communication) and a {@code RESULT} line. Exits 0
 * when the result is right, 1 when it is not.
 *
 * <p>Usage: {@code AppCoordinator APP SIZE WORKERS PORT [--host ADDRESS]}; {@code --host} names the
 * address the stubs carry, for a coordinator in a network namespace.
 */
public final class AppCoordinator {

    public static final Pattern READY = Pattern.compile("^READY$");
    public static final Pattern RESULT = Pattern.compile(
            "^RESULT app=(\\S+) size=(\\S+) workers=(\\d+) millis=([\\d.]+) comm=([\\d.]+) calls=(\\d+) ok=(true|false)$");

    private AppCoordinator() {
    }

    /** Joins and hand-ins; the run's clock. */
    static final class Run implements Coordinator {
        private final int workers;
        private final List<Remote> joined = new ArrayList<>();
        private final Serializable[] parts;
        private final Times[] times;
        private int done;
        private long started;
        private long ended;

        Run(int workers) {
            this.workers = workers;
            this.parts = new Serializable[workers];
            this.times = new Times[workers];
        }

        @Override
        public synchronized Peers join(Remote worker) throws java.rmi.RemoteException {
            if (joined.size() == workers) {
                throw new java.rmi.RemoteException("all " + workers + " workers have joined already");
            }
            int rank = joined.size();
            joined.add(worker);
            if (joined.size() == workers) {
                started = System.nanoTime();
                notifyAll();
            }
            while (joined.size() < workers) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.rmi.RemoteException("interrupted while the others joined");
                }
            }
            return new Peers(rank, List.copyOf(joined));
        }

        @Override
        public synchronized void done(int rank, Serializable part, Times workerTimes) {
            parts[rank] = part;
            times[rank] = workerTimes;
            if (++done == workers) {
                ended = System.nanoTime();
                notifyAll();
            }
        }

        synchronized void awaitDone() throws InterruptedException {
            while (done < workers) {
                wait();
            }
        }

        /** The workers' parts, by rank (once all are done). */
        synchronized List<Serializable> parts() {
            return Arrays.asList(parts.clone());
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && !(args.length == 6 && args[4].equals("--host"))) {
            System.err.println("usage: AppCoordinator APP SIZE WORKERS PORT [--host ADDRESS]");
            System.exit(2);
        }
        if (args.length == 6) {
            System.setProperty("java.rmi.server.hostname", args[5]);
        }
        String name = args[0];
        String size = args[1];
        int workers = Integer.parseInt(args[2]);
        ParallelApp app = Apps.of(name, size);
        Run run = new Run(workers);
        try {
            Registry registry = LocateRegistry.createRegistry(Integer.parseInt(args[3]));
            app.bindServices(registry, workers);
            registry.rebind(Coordinator.NAME, UnicastRemoteObject.exportObject(run, 0));
            System.out.println("READY");
            System.out.flush();
            run.awaitDone();
        } catch (Exception | Error e) {
            // The registry keeps RMI's threads, and so this JVM, alive: say so and exit.
            e.printStackTrace();
            System.exit(1);
        }

        long calls = 0;
        double commShare = 0;
        for (int rank = 0; rank < workers; rank++) {
            Coordinator.Times t = run.times[rank];
            System.out.printf(Locale.ROOT, "WORKER rank=%d millis=%.1f comm_millis=%.1f calls=%d%n", rank,
                    t.totalNanos() / 1e6, t.commNanos() / 1e6, t.calls());
            calls += t.calls();
            commShare += (double) t.commNanos() / t.totalNanos() / workers;
        }
        String wrong = app.check(run.parts());
        if (wrong != null) {
            System.out.println("MISMATCH " + wrong);
        }
        System.out.printf(Locale.ROOT, "RESULT app=%s size=%s workers=%d millis=%.1f comm=%.3f calls=%d ok=%b%n", name,
                size, workers, (run.ended - run.started) / 1e6, commShare, calls, wrong == null);
        System.out.flush();
        System.exit(wrong == null ? 0 : 1);
    }
}
