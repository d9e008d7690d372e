package io.fastrmi.netpipe.bench;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Times the kernels against a {@link BenchServer}: for each, W warm-up calls, then N timed calls (the
 * 1 MiB echo N/20, at least 50; star8 N per thread), each timed on its own. Prints one line per kernel,
 * {@code KERNEL name median_us p99_us calls}, or {@code FAILED name why} (then goes on with the next
 * and exits with 1 at the end); a wrong result is a failure.
 *
 * <p>Usage: {@code BenchClient host port [--kernels null,echo-int,...] [--calls N] [--warmup W]}
 */
public final class BenchClient {

    public static final Pattern KERNEL = Pattern.compile("^KERNEL (\\S+) ([0-9.]+) ([0-9.]+) (\\d+)$");
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
            for (Kernel kernel : chosen) {
                failed |= !runAndReport(kernel, warmup, calls);
            }
        } finally {
            UnicastRemoteObject.unexportObject(callback, true);
        }
        System.out.flush();
        System.exit(failed ? 1 : 0);
    }

    /** Runs one kernel and prints its line; false when it failed. */
    private static boolean runAndReport(Kernel kernel, int warmup, int calls) {
        try {
            int timed = kernel.scaled(calls);
            Latencies latencies = Latencies.of(kernel.run(kernel.scaled(warmup), timed));
            System.out.printf(Locale.ROOT, "KERNEL %s %.2f %.2f %d%n", kernel.name(), kernel.typicalMicros(latencies),
                    latencies.p99Micros(), latencies.calls());
            return true;
        } catch (Exception | Error e) {
            System.out.println("FAILED " + kernel.name() + " " + String.valueOf(e).replace('\n', ' '));
            e.printStackTrace();
            return false;
        } finally {
            System.out.flush();
        }
    }

    private static void usage() {
        System.err.println("usage: BenchClient host port [--kernels " + String.join(",", Kernels.ALL)
                + "] [--calls N] [--warmup W]");
        System.exit(2);
    }
}
