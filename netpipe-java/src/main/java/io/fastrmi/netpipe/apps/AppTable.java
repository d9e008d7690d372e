package io.fastrmi.netpipe.apps;

import io.fastrmi.netpipe.bench.report.Column;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The papers' table: per application and worker count, each column's time (ms) and speedup (its own
 * time on one worker over this one), the agent's gain (stock's time over the column's), and the
 * workers' share of time in communication (remote calls and waits for data).
 */
final class AppTable {

    private AppTable() {
    }

    static void print(AppRunner.Options options, List<Column> columns,
            Map<String, Map<Integer, Map<String, AppRunner.Outcome>>> results) {
        System.out.printf(Locale.ROOT, "%nFastRMI applications: JDK %s, %s, size %s, %d processor(s), median of %d round(s)%n",
                options.jdk().version(), options.namespaces() ? "workers spread over network namespaces" : "one host",
                options.size(), Runtime.getRuntime().availableProcessors(), options.rounds());
        System.out.println("each cell: time in ms, speedup over the column's own 1-worker run, share of the workers'"
                + " time in communication; gain = stock's time / the column's");
        System.out.println(options.recorded() ? "every JVM recorded JFR; * marks an agent run not all of whose connections were fast"
                : "no JVM recorded JFR (--jfr off): whether the agent's connections were fast was not checked");
        for (Map.Entry<String, Map<Integer, Map<String, AppRunner.Outcome>>> app : results.entrySet()) {
            StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%n%-4s %-8s", app.getKey().toUpperCase(Locale.ROOT), "workers"));
            for (Column column : columns) {
                header.append(String.format(Locale.ROOT, " | %-30s", column.name()));
                if (column.withAgent()) {
                    header.append(" gain ");
                }
            }
            System.out.println(header);
            Map<String, AppRunner.Outcome> one = app.getValue().get(1);
            for (Map.Entry<Integer, Map<String, AppRunner.Outcome>> row : app.getValue().entrySet()) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-4s %-8d", "", row.getKey()));
                AppRunner.Outcome stock = row.getValue().get(Column.STOCK.name());
                for (Column column : columns) {
                    AppRunner.Outcome cell = row.getValue().get(column.name());
                    if (!cell.ok()) {
                        line.append(String.format(Locale.ROOT, " | %-30s", "FAILED"));
                        if (column.withAgent()) {
                            line.append("      ");
                        }
                        continue;
                    }
                    AppRunner.Outcome base = one == null ? null : one.get(column.name());
                    String speedup = base == null || !base.ok() ? "-" : String.format(Locale.ROOT, "%.2f", base.millis() / cell.millis());
                    line.append(String.format(Locale.ROOT, " | %10.1f %6s %5.0f%% comm %s", cell.millis(), speedup,
                            100 * cell.commShare(), cell.notFast() == null ? " " : "*"));
                    if (column.withAgent()) {
                        line.append(stock.ok() ? String.format(Locale.ROOT, " %4.2fx", stock.millis() / cell.millis()) : "   -  ");
                    }
                }
                System.out.println(line);
            }
        }
        results.forEach((app, byWorkers) -> byWorkers.forEach((workers, cells) -> cells.forEach((column, cell) -> {
            if (!cell.ok()) {
                System.out.printf(Locale.ROOT, "FAILED %s workers=%d %s: %s%n", app, workers, column, cell.error());
            } else if (cell.notFast() != null) {
                System.out.printf(Locale.ROOT, "* %s workers=%d %s: %s%n", app, workers, column, cell.notFast());
            }
        })));
    }
}
