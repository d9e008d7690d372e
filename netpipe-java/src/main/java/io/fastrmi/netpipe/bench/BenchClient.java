package io.fastrmi.netpipe.bench;

import io.fastrmi.netpipe.bench.kernels.BenchService;
import io.fastrmi.netpipe.bench.kernels.Callback;
import io.fastrmi.netpipe.bench.kernels.DoublingCallback;
import io.fastrmi.netpipe.bench.kernels.JitSettling;
import io.fastrmi.netpipe.bench.kernels.Kernel;
import io.fastrmi.netpipe.bench.kernels.Kernels;
import io.fastrmi.netpipe.bench.kernels.Latencies;
import io.fastrmi.netpipe.bench.kernels.ProcessCost;
import io.fastrmi.netpipe.bench.kernels.ThreadCosts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Times the kernels against a {@link BenchServer}, batch by batch as the driver on its standard input
 * asks, so that the driver can interleave the batches of several client JVMs (stock RMI and each
 * transport) and the weather of a shared machine falls on all of them alike. First it runs every
 * kernel's W warm-up calls (in turns over the kernels, {@link #WARMUP_TURNS}) and waits for both
 * JVMs' JIT compilers to settle ({@link JitSettling}),
 * which asks the server over RMI every 50 ms (with W = 0 neither: a fresh pair's first calls follow
 * the lookup), then prints {@code READY} and reads commands ({@link Batches}):
 * <ul>
 * <li>{@code batch SEQ KERNEL I OF}: batch I of OF of the kernel's N timed calls ({@link Kernel#scaled}:
 * the 1 MiB echo N/20, the paced kernels N/4, the JMX scrape N/200 scrapes; star8 N per thread), after
 * a tenth as many untimed ones that wake both JVMs' threads up after their idle time (none with W = 0:
 * a fresh pair's first calls are timed); then {@code DONE SEQ}. A wrong result is a failure; a kernel
 * that failed runs no more batches.
 * <li>{@code report SEQ}: one line per kernel, {@code KERNEL name median_us p99_us calls
 * cpu_us_per_call switches_per_call} (over all its batches; the last two: what a timed call cost the
 * client and the server JVM together, {@link ProcessCost}) and an {@code ALLOC} line
 * ({@link #allocationLine}), or {@code FAILED name why}; then {@code DONE SEQ}.
 * <li>{@code quit} (or the end of input): exits, with 1 if any kernel failed.
 * </ul>
 *
 * <p>Usage: {@code BenchClient host port [--kernels null,echo-int,...] [--calls N] [--warmup W]}
 */
public final class BenchClient {

    public static final Pattern READY = Pattern.compile("^READY$");
    public static final Pattern KERNEL = Pattern.compile("^KERNEL (\\S+) ([0-9.]+) ([0-9.]+) (\\d+) (-?[0-9.]+) (-?[0-9.]+)$");
    public static final Pattern FAILED = Pattern.compile("^FAILED (\\S+) (.*)$");

    private BenchClient() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length % 2 != 0) {
            usage();
        }
        List<String> kernels = Kernels.ALL;
        int calls = 20_000;
        int warmup = -1;
        for (int i = 2; i < args.length; i += 2) {
            switch (args[i]) {
                case "--kernels" -> kernels = List.of(args[i + 1].split("\\s*,\\s*"));
                case "--calls" -> calls = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                default -> usage();
            }
        }
        warmup = warmup < 0 ? calls : warmup;
        BenchService service = (BenchService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(BenchService.NAME);
        DoublingCallback callback = new DoublingCallback();
        Callback callbackStub = (Callback) UnicastRemoteObject.exportObject(callback, 0);
        boolean failed;
        try {
            Map<String, Kernel> chosen = new LinkedHashMap<>();
            for (String name : kernels) {
                chosen.put(name, Kernels.named(name, service, callbackStub)); // an unknown name fails before any timing
            }
            prepare(chosen.values(), service, warmup, System.out);
            System.out.println("READY");
            System.out.flush();
            BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            failed = serve(chosen, service, calls, warmup > 0, stdin, System.out);
        } finally {
            UnicastRemoteObject.unexportObject(callback, true);
        }
        System.out.flush();
        System.exit(failed ? 1 : 0);
    }

    /**
     * Warm-up calls are made in this many turns over the kernels. Kernels share RMI's and the codec's
     * path, and each one's types make the JIT throw away code it compiled for the others: warmed up
     * one after the other, the first kernel's path was compiled again in its timed batches, the two
     * JVMs' C2 threads holding a core for a second or more, and a callback's three threads then shared
     * the other core (12-14 or 25-35 us by pair, docs/journal.md). In turns, each kernel's last
     * warm-up calls come after every kernel's types were seen.
     */
    static final int WARMUP_TURNS = 4;

    /**
     * Before any kernel is timed: with {@code warmup} > 0, every kernel's warm-up calls, in
     * {@link #WARMUP_TURNS} turns over the kernels, then a wait until both JVMs' JIT compilers
     * settle ({@link JitSettling}); prints {@code WARMUP jit_settled_ms}.
     * With 0 it makes no call: the settling's polls are RMI calls too, and a column whose JIT settles
     * later would make more of them, so its "first" calls would come warmer than another column's.
     * A kernel that fails here is left to fail, with its line, when it is timed.
     */
    static void prepare(Iterable<Kernel> kernels, BenchService service, int warmup, PrintStream out) {
        if (warmup == 0) {
            out.println("WARMUP 0");
            return;
        }
        for (int turn = 0; turn < WARMUP_TURNS; turn++) {
            for (Kernel kernel : kernels) {
                int calls = Batches.size(kernel.scaled(warmup), turn, WARMUP_TURNS);
                if (calls == 0) {
                    continue;
                }
                try {
                    kernel.run(calls, 0);
                } catch (Exception | Error e) {
                    // reported when the kernel is timed
                }
            }
        }
        try {
            long waited = JitSettling.await(() -> {
                try {
                    long server = service.compilationMillis();
                    long client = JitSettling.compilationMillisOfThisProcess();
                    return server < 0 || client < 0 ? -1 : server + client;
                } catch (java.rmi.RemoteException e) {
                    return -1;
                }
            });
            out.println("WARMUP " + waited);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs the driver's commands from {@code in} until {@code quit} or the end of input, answering on
     * {@code out}; returns whether any kernel failed. A command it does not know fails the client.
     */
    static boolean serve(Map<String, Kernel> kernels, BenchService service, int calls, boolean untimedFirst,
            BufferedReader in, PrintStream out) throws IOException {
        Map<String, Tally> tallies = new LinkedHashMap<>();
        String line;
        while ((line = in.readLine()) != null) {
            Batches.Command command = Batches.Command.parse(line);
            switch (command.verb()) {
                case BATCH -> {
                    Kernel kernel = kernels.get(command.kernel());
                    if (kernel == null) {
                        throw new IllegalArgumentException("no kernel " + command.kernel() + " in this client: " + kernels.keySet());
                    }
                    Tally tally = tallies.computeIfAbsent(kernel.name(), name -> new Tally());
                    if (tally.failure == null) {
                        runBatch(kernel, service, Batches.size(kernel.scaled(calls), command.index(), command.of()), untimedFirst, tally);
                    }
                }
                case REPORT -> tallies.forEach((name, tally) -> tally.report(name, kernels.get(name), out));
                case QUIT -> {
                    return anyFailed(tallies);
                }
            }
            out.println(Batches.done(command.seq()));
            out.flush();
        }
        return anyFailed(tallies);
    }

    private static boolean anyFailed(Map<String, Tally> tallies) {
        return tallies.values().stream().anyMatch(t -> t.failure != null);
    }

    /**
     * One batch: a tenth as many untimed calls ({@code untimedFirst}; a fresh pair's first calls are
     * timed from the first), then {@code calls} timed ones and what they cost.
     */
    private static void runBatch(Kernel kernel, BenchService service, int calls, boolean untimedFirst, Tally tally) {
        if (calls == 0) {
            return;
        }
        try {
            kernel.run(untimedFirst ? Math.max(1, calls / 10) : 0, 0);
            ThreadCosts serverBefore = ThreadCosts.of(service.processCost());
            ThreadCosts clientBefore = ThreadCosts.ofThisProcess();
            long[] nanos = kernel.run(0, calls);
            ProcessCost client = ThreadCosts.ofThisProcess().since(clientBefore);
            ProcessCost server = ThreadCosts.of(service.processCost()).since(serverBefore);
            tally.add(nanos, client, server);
        } catch (Exception | Error e) {
            tally.failure = String.valueOf(e).replace('\n', ' ');
            e.printStackTrace();
        }
    }

    /** A kernel's timed calls over all its batches so far, or why it failed. */
    private static final class Tally {
        private long[] nanos = new long[0];
        private ProcessCost client = new ProcessCost(0, 0, 0);
        private ProcessCost server = new ProcessCost(0, 0, 0);
        private String failure;

        void add(long[] batch, ProcessCost clientCost, ProcessCost serverCost) {
            long[] all = java.util.Arrays.copyOf(nanos, nanos.length + batch.length);
            System.arraycopy(batch, 0, all, nanos.length, batch.length);
            nanos = all;
            client = client.plus(clientCost);
            server = server.plus(serverCost);
        }

        void report(String name, Kernel kernel, PrintStream out) {
            if (failure != null) {
                out.println("FAILED " + name + " " + failure);
            } else if (nanos.length == 0) {
                out.println("FAILED " + name + " no call was timed");
            } else {
                Latencies latencies = Latencies.of(nanos.clone());
                out.println(kernelLine(name, kernel.typicalMicros(latencies), latencies.p99Micros(), latencies.calls(),
                        client.plus(server)));
                out.println(allocationLine(name, latencies.calls(), client, server));
            }
        }
    }

    /** The line {@link #KERNEL} reads: a kernel's typical call and p99 in us, its calls, and their cost per call. */
    static String kernelLine(String kernel, double typicalMicros, double p99Micros, int calls, ProcessCost cost) {
        return String.format(Locale.ROOT, "KERNEL %s %.2f %.2f %d %.2f %.3f", kernel, typicalMicros, p99Micros, calls,
                cost.cpuNanos() / 1e3 / calls, (double) cost.switches() / calls);
    }

    /**
     * {@code ALLOC name client_bytes_per_call server_bytes_per_call}: what a timed call allocated on
     * each side's heap (the client's includes the kernel's own timing, the same in every column).
     */
    static String allocationLine(String kernel, int calls, ProcessCost client, ProcessCost server) {
        return String.format(Locale.ROOT, "ALLOC %s %.0f %.0f", kernel, (double) client.allocatedBytes() / calls,
                (double) server.allocatedBytes() / calls);
    }

    private static void usage() {
        System.err.println("usage: BenchClient host port [--kernels " + String.join(",", Kernels.ALL)
                + "] [--calls N] [--warmup W]");
        System.exit(2);
    }
}
