package io.fastrmi.netpipe.bench;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Times the kernels against a {@link BenchServer}: first every kernel's W warm-up calls and a wait for
 * both JVMs' JIT compilers to settle ({@link JitSettling}); then for each, W warm-up calls, then N timed calls (the
 * 1 MiB echo N/20, at least 50; star8 N per thread), each timed on its own. Prints one line per kernel,
 * {@code KERNEL name median_us p99_us calls cpu_us_per_call switches_per_call} (the last two: what a
 * timed call cost the client and the server JVM together, {@link ProcessCost}) and an {@code ALLOC} line
 * ({@link #allocationLine}), or {@code FAILED name why}
 * (then goes on with the next and exits with 1 at the end); a wrong result is a failure.
 *
 * <p>Usage: {@code BenchClient host port [--kernels null,echo-int,...] [--calls N] [--warmup W]}
 */
public final class BenchClient {

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
        boolean failed = false;
        try {
            List<Kernel> chosen = new ArrayList<>();
            for (String name : kernels) {
                chosen.add(Kernels.named(name, service, callbackStub)); // an unknown name fails before any timing
            }
            warmUp(chosen, service, warmup);
            for (Kernel kernel : chosen) {
                failed |= !runAndReport(kernel, service, warmup, calls);
            }
        } finally {
            UnicastRemoteObject.unexportObject(callback, true);
        }
        System.out.flush();
        System.exit(failed ? 1 : 0);
    }

    /**
     * Every kernel's warm-up once, then a wait until both JVMs' JIT compilers settle ({@link JitSettling}),
     * before any kernel is timed. Prints {@code WARMUP jit_settled_ms}. A kernel that fails here is
     * left to fail, with its line, when it is timed.
     */
    private static void warmUp(List<Kernel> kernels, BenchService service, int warmup) {
        for (Kernel kernel : kernels) {
            try {
                kernel.run(kernel.scaled(warmup), 0);
            } catch (Exception | Error e) {
                // reported when the kernel is timed
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
            System.out.println("WARMUP " + waited);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs one kernel and prints its line; false when it failed. */
    private static boolean runAndReport(Kernel kernel, BenchService service, int warmup, int calls) {
        try {
            kernel.run(kernel.scaled(warmup), 0);
            ProcessCost serverBefore = ProcessCost.of(service.processCost());
            ProcessCost clientBefore = ProcessCost.ofThisProcess();
            Latencies latencies = Latencies.of(kernel.run(0, kernel.scaled(calls)));
            ProcessCost client = ProcessCost.ofThisProcess().since(clientBefore);
            ProcessCost server = ProcessCost.of(service.processCost()).since(serverBefore);
            System.out.println(kernelLine(kernel.name(), kernel.typicalMicros(latencies), latencies.p99Micros(),
                    latencies.calls(), client.plus(server)));
            System.out.println(allocationLine(kernel.name(), latencies.calls(), client, server));
            return true;
        } catch (Exception | Error e) {
            System.out.println("FAILED " + kernel.name() + " " + String.valueOf(e).replace('\n', ' '));
            e.printStackTrace();
            return false;
        } finally {
            System.out.flush();
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
