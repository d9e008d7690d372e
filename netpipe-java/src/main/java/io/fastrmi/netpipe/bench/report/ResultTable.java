package io.fastrmi.netpipe.bench.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The tables, one per load: a row per kernel, stock RMI's median/p99 and each transport's with its
 * ratio to stock; a cell that went wrong in some round points to a note saying what; then the
 * worst ratio of each transport, and the {@code WORST} lines.
 */
public final class ResultTable {

    private final Results results;
    private final PrintStream out;

    private ResultTable(Results results, PrintStream out) {
        this.results = results;
        this.out = out;
    }

    public static void print(Results results, PrintStream out) {
        ResultTable table = new ResultTable(results, out);
        for (String load : results.options().loads()) {
            table.printLoad(load);
        }
        for (String load : results.options().loads()) {
            table.printWorstLines(load);
        }
    }

    private void printLoad(String load) {
        BenchOptions options = results.options();
        List<Column> columns = options.columns();
        Map<String, Integer> notes = new LinkedHashMap<>(); // "column, round: problem" -> its number
        List<List<String>> rows = new ArrayList<>();
        rows.add(header(columns));
        for (String kernel : options.kernels()) {
            List<String> row = new ArrayList<>(List.of(kernel));
            for (Column column : columns) {
                row.add(cellText(load, column, kernel, notes));
            }
            rows.add(row);
        }
        List<String> worst = new ArrayList<>(List.of("worst", ""));
        for (Column column : columns.subList(1, columns.size())) {
            worst.add(results.worst(load, column).map(w -> String.format(Locale.ROOT, "%.2fx %s", w.ratio(), w.kernel()))
                    .orElse("n/a"));
        }
        rows.add(worst);
        out.println();
        out.println(load.equals(BenchOptions.LOADED)
                ? "loaded: " + Runtime.getRuntime().availableProcessors() + " busy threads in the driver while the pairs run"
                : "quiet: nothing else running in the driver");
        printAligned(rows);
        notes.forEach((note, number) -> out.println("  [" + number + "] " + note));
        printCosts(load);
    }

    private static List<String> header(List<Column> columns) {
        List<String> header = new ArrayList<>(List.of("kernel"));
        columns.forEach(c -> header.add(c.withAgent() ? c.name() : "stock RMI"));
        return header;
    }

    /**
     * What a call cost both JVMs, beside each table: CPU time and context switches per call, and the
     * CPU ratio to stock. Unlike latency it does not change with where the scheduler put the threads.
     */
    private void printCosts(String load) {
        List<Column> columns = results.options().columns();
        List<List<String>> rows = new ArrayList<>();
        rows.add(header(columns));
        for (String kernel : results.options().kernels()) {
            List<String> row = new ArrayList<>(List.of(kernel));
            for (Column column : columns) {
                Cell cell = results.cell(load, column, kernel);
                Set<Integer> timed = cell.timedRounds();
                String text = timed.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f/%.2f", cell.medianOfCpu(timed),
                        cell.medianOfSwitches(timed));
                double ratio = column.withAgent() ? results.cpuRatio(load, column, kernel) : Double.NaN;
                row.add(Double.isNaN(ratio) ? text : text + String.format(Locale.ROOT, " (%.2fx)", ratio));
            }
            rows.add(row);
        }
        out.println("cost per call of both JVMs (" + load + "): CPU us / context switches (CPU ratio x to stock)");
        printAligned(rows);
    }

    /**
     * "median/p99 (ratio x low-high)", with the lowest and highest ratio of single rounds when there
     * are several; "n/a [k]" or "error [k]"; "[k]" also marks timings that some rounds lack.
     */
    private String cellText(String load, Column column, String kernel, Map<String, Integer> notes) {
        Cell cell = results.cell(load, column, kernel);
        List<String> numbers = new ArrayList<>();
        for (Map.Entry<Integer, Outcome> round : cell.rounds().entrySet()) {
            String problem = round.getValue().problem();
            if (problem != null) {
                // Without the kernel: a problem of the whole pair (most are) is one note for every row.
                String note = column.name() + ", round " + round.getKey() + ": " + problem;
                numbers.add(String.valueOf(notes.computeIfAbsent(note, n -> notes.size() + 1)));
            }
        }
        String marker = numbers.isEmpty() ? "" : " [" + String.join(",", numbers) + "]";
        Set<Integer> timed = cell.timedRounds();
        if (timed.isEmpty()) {
            return (cell.rounds().values().stream().anyMatch(o -> o.error() != null) ? "error" : "n/a") + marker;
        }
        String text = String.format(Locale.ROOT, "%.1f/%.1f", cell.medianOfMedians(timed), cell.medianOfP99s(timed));
        if (column.withAgent()) {
            double ratio = results.ratio(load, column, kernel);
            text += Double.isNaN(ratio) ? " (-)" : String.format(Locale.ROOT, " (%.2fx%s)", ratio,
                    results.roundRatioRange(load, column, kernel).filter(r -> timed.size() > 1)
                            .map(r -> String.format(Locale.ROOT, " %.2f-%.2f", r[0], r[1])).orElse(""));
        }
        return text + marker;
    }

    private void printAligned(List<List<String>> rows) {
        int[] widths = new int[rows.get(0).size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                String format = i == 0 ? "%-" + widths[i] + "s" : "  %" + widths[i] + "s";
                line.append(String.format(Locale.ROOT, format, row.get(i)));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    private void printWorstLines(String load) {
        for (Column column : results.options().columns()) {
            if (column.withAgent()) {
                out.println(results.worst(load, column)
                        .map(w -> String.format(Locale.ROOT, "WORST %s %s %s %.2f", load, column.name(), w.kernel(), w.ratio()))
                        .orElse("WORST " + load + " " + column.name() + " - n/a"));
            }
        }
    }
}
