package io.fastrmi.netpipe;

import io.fastrmi.netpipe.np.Exchange;
import io.fastrmi.netpipe.np.Point;
import io.fastrmi.netpipe.np.RepeatPlan;
import io.fastrmi.netpipe.np.SizeSchedule;
import io.fastrmi.netpipe.np.Sweep;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** NetPIPE's options for a sweep. */
final class SweepOptions {
    @Option(names = {"-l", "--lower"}, description = "smallest message, bytes (default ${DEFAULT-VALUE})")
    int lower = 1;

    @Option(names = {"-u", "--upper"}, description = "largest message, bytes (default ${DEFAULT-VALUE}: 8 MiB)")
    int upper = 8 * 1024 * 1024;

    @Option(names = {"-p", "--perturbation"}, description = "NetPIPE's perturbation, bytes; 0 for none (default ${DEFAULT-VALUE})")
    int perturbation = SizeSchedule.DEFAULT_PERTURBATION;

    @Option(names = {"-o", "--output"}, description = "np.out file (default ${DEFAULT-VALUE})")
    Path output = Path.of("np.out");

    @Option(names = "--trials", description = "trials per point, the best kept (default ${DEFAULT-VALUE})")
    int trials = 3;

    @Option(names = "--trial-time", description = "seconds one trial aims at (default ${DEFAULT-VALUE})")
    double trialSeconds = RepeatPlan.DEFAULT_TRIAL_SECONDS;

    @Option(names = "--min-repeats", description = "fewest exchanges in a trial (default ${DEFAULT-VALUE})")
    int minRepeats = 3;

    @Option(names = "--max-repeats", description = "most exchanges in a trial (default ${DEFAULT-VALUE})")
    int maxRepeats = 1_000_000;

    @Option(names = "--warmup", description = "JIT warm-up exchanges before measuring (default ${DEFAULT-VALUE})")
    int warmup = 10_000;

    @Option(names = "--stop-time", description = "stop after a point slower than this many seconds one way (default ${DEFAULT-VALUE})")
    double stopSeconds = 1.0;

    List<Integer> sizes() {
        return SizeSchedule.sizes(lower, upper, perturbation);
    }

    /** Runs the sweep, writing np.out as points come, and prints where it went. */
    int sweep(Exchange exchange, List<Integer> sizes) throws Exception {
        List<Point> points = measure(exchange, sizes, output);
        System.out.printf(Locale.ROOT, "%s: %d points in %s%n", exchange.describe(), points.size(), output);
        for (Point point : points) {
            System.out.println(NetPipe.pointLine(point));
        }
        return 0;
    }

    /** The sweep's points, written to {@code npOut} as they come. */
    List<Point> measure(Exchange exchange, List<Integer> sizes, Path npOut) throws Exception {
        Sweep sweep = new Sweep(exchange, new RepeatPlan(trialSeconds, minRepeats, maxRepeats), trials, warmup,
                stopSeconds, System.err);
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(npOut, StandardCharsets.UTF_8))) {
            return sweep.run(sizes, point -> {
                out.println(point.npOutLine());
                out.flush();
            });
        }
    }
}
