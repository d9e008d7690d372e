package io.fastrmi.netpipe.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the driver interleaves the columns: each kernel's timed calls are cut into batches, and batch
 * by batch every column's client JVM runs its share in turn, the first of each batch another column.
 * A slow spell of the shared machine (this VM runs a JVM pair 2-3x slower for seconds to minutes,
 * stock and agent alike) then falls on every column's calls alike, where, with each column run to
 * its end in turn, it fell on whichever column was running. Also the commands that say so to a
 * {@link BenchClient}, one line each, and its answer.
 */
final class Batches {

    /** What the driver may ask. */
    enum Verb { BATCH, REPORT, QUIT }

    /** One command line: {@code batch SEQ KERNEL I OF}, {@code report SEQ} or {@code quit}. */
    record Command(Verb verb, long seq, String kernel, int index, int of) {

        private static final Pattern BATCH = Pattern.compile("^batch (\\d+) (\\S+) (\\d+) (\\d+)$");
        private static final Pattern REPORT = Pattern.compile("^report (\\d+)$");

        static Command batch(long seq, String kernel, int index, int of) {
            if (index < 0 || index >= of) {
                throw new IllegalArgumentException("batch " + index + " of " + of);
            }
            return new Command(Verb.BATCH, seq, kernel, index, of);
        }

        static Command report(long seq) {
            return new Command(Verb.REPORT, seq, null, 0, 0);
        }

        static Command quit() {
            return new Command(Verb.QUIT, 0, null, 0, 0);
        }

        /** Throws IllegalArgumentException naming the line when it is none of the commands. */
        static Command parse(String line) {
            String trimmed = line.trim();
            Matcher batch = BATCH.matcher(trimmed);
            if (batch.matches()) {
                return batch(Long.parseLong(batch.group(1)), batch.group(2), Integer.parseInt(batch.group(3)),
                        Integer.parseInt(batch.group(4)));
            }
            Matcher report = REPORT.matcher(trimmed);
            if (report.matches()) {
                return report(Long.parseLong(report.group(1)));
            }
            if (trimmed.equals("quit")) {
                return quit();
            }
            throw new IllegalArgumentException("not a bench command: '" + line + "'");
        }

        String line() {
            return switch (verb) {
                case BATCH -> "batch " + seq + " " + kernel + " " + index + " " + of;
                case REPORT -> "report " + seq;
                case QUIT -> "quit";
            };
        }
    }

    private Batches() {
    }

    /** The client's answer once command {@code seq} is done. */
    static String done(long seq) {
        return "DONE " + seq;
    }

    static Pattern donePattern(long seq) {
        return Pattern.compile("^" + Pattern.quote(done(seq)) + "$");
    }

    /** How many of {@code total} calls batch {@code index} of {@code of} makes: the batches differ by one call at most and add up to it. */
    static int size(int total, int index, int of) {
        return (int) ((long) total * (index + 1) / of - (long) total * index / of);
    }

    /**
     * A run of first calls (no warm-up): for each kernel in the given order, each column's calls of
     * it in one batch, the columns in turn (the first another one for each kernel and round), each
     * after {@code settle}, which waits for every column's compilers: a column's first calls are
     * compiled while they run, as in a job's, and no other column's compiling falls into them
     * (docs/benchmarks.md, "Method"). Waiting between batches of one column instead would take its
     * own compiling out of its timed calls.
     */
    static <T> void firstCalls(List<String> kernels, List<T> columns, int round, Runnable settle,
            BiConsumer<T, String> batch) {
        for (int k = 0; k < kernels.size(); k++) {
            for (T column : turn(columns, round + k)) {
                settle.run();
                batch.accept(column, kernels.get(k));
            }
        }
    }

    /** The order the columns run batch {@code index} in: rotated by one each batch, so each goes first as often. */
    static <T> List<T> turn(List<T> columns, int index) {
        List<T> order = new ArrayList<>(columns);
        if (!order.isEmpty()) {
            Collections.rotate(order, -(index % order.size()));
        }
        return order;
    }
}
