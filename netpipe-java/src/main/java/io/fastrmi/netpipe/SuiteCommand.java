package io.fastrmi.netpipe;

import io.fastrmi.netpipe.bench.compare.SuiteResults;
import io.fastrmi.netpipe.np.Exchange;
import io.fastrmi.netpipe.np.KarmiObject;
import io.fastrmi.netpipe.np.KernelExchange;
import io.fastrmi.netpipe.np.Point;
import io.fastrmi.netpipe.np.RmiArrayExchange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "suite",
        description = "Several kernels and array sweeps against one server in one JVM, as the side-by-side run"
                + " uses it: a RESULT or FAILED line per item, an np.out file per item in --out, and with --results"
                + " the same as JSON.")
final class SuiteCommand extends ClientCommand {

    @Option(names = "--kernels", split = ",", description = "KERNEL[/OBJ] items, e.g. ping,obj/tree15,star/float:50")
    List<String> kernels = List.of();

    @Option(names = "--sweeps", split = ",", description = "array sweeps from -l to -u: byte, int, double, and"
            + " TYPE-one-way, e.g. byte,double,byte-one-way")
    List<String> sweeps = List.of();

    @Option(names = "--clients", description = "star's client threads (default ${DEFAULT-VALUE})")
    int clients = 8;

    @Option(names = "--out", required = true, description = "folder for the np.out files, one per item")
    Path out;

    @Option(names = "--results", description = "a JSON file of every item's outcome, written as they come (SuiteResults)")
    Path results;

    private SuiteResults written;

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(out);
        written = results == null ? null : new SuiteResults(results);
        int failed = 0;
        try (AutoCloseableCalls calls = peer.connect()) {
            for (String item : kernels) {
                failed += run(item, () -> {
                    String[] parts = item.split("/", 2);
                    return new KernelExchange(calls.calls(), KernelExchange.Kernel.named(parts[0]),
                            KarmiObject.parse(parts.length > 1 ? parts[1] : "null"), clients);
                }, List.of(0));
            }
            for (String item : sweeps) {
                boolean oneWay = item.endsWith("-one-way");
                String type = oneWay ? item.substring(0, item.length() - "-one-way".length()) : item;
                failed += run("sweep-" + item, () -> new RmiArrayExchange(calls.calls(),
                        RmiArrayExchange.Type.valueOf(type.toUpperCase(Locale.ROOT)), oneWay), sweep.sizes());
            }
        }
        return failed == 0 ? 0 : 1;
    }

    private void record(SuiteResults.Item item) {
        if (written == null) {
            return;
        }
        try {
            written.add(item);
        } catch (java.io.IOException e) {
            System.out.println("FAILED " + item.item() + " cannot write " + results + ": " + e.getMessage());
        }
    }

    /** Runs one item; 1 when it failed (said on a FAILED line), else 0. */
    private int run(String item, Callable<Exchange> exchange, List<Integer> sizes) {
        try (Exchange chosen = exchange.call()) {
            List<Point> points = sweep.measure(chosen, sizes, out.resolve(item.replaceAll("[^A-Za-z0-9_.-]", "_") + ".out"));
            Point first = points.get(0);
            System.out.printf(Locale.ROOT, "RESULT %s %.3f %d%n", item, first.bestRoundTripSeconds() * 1e6, first.bytes());
            record(SuiteResults.Item.measured(item, first.bestRoundTripSeconds() * 1e6, first.bytes()));
            return 0;
        } catch (Exception | Error e) {
            String why = String.valueOf(e).replace('\n', ' ');
            System.out.println("FAILED " + item + " " + why);
            e.printStackTrace();
            record(SuiteResults.Item.failed(item, why));
            return 1;
        } finally {
            System.out.flush();
        }
    }
}
