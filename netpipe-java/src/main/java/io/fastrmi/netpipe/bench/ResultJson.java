package io.fastrmi.netpipe.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The results as JSON (written by hand: no JSON library in this module): the run's settings, one
 * entry per load, column and kernel with its medians, ratio and every round's raw outcome, and the
 * worst ratio of each transport per load.
 */
final class ResultJson {

    private ResultJson() {
    }

    static void write(Results results, String started, String hosts, Path file) throws IOException {
        BenchOptions options = results.options();
        StringBuilder json = new StringBuilder("{\n");
        json.append("  \"started\": ").append(string(started)).append(",\n");
        json.append("  \"jdk\": ").append(string(options.jdk().version())).append(",\n");
        json.append("  \"hosts\": ").append(string(options.hosts())).append(",\n");
        json.append("  \"hosts_detail\": ").append(string(hosts)).append(",\n");
        json.append("  \"processors\": ").append(Runtime.getRuntime().availableProcessors()).append(",\n");
        json.append("  \"rounds\": ").append(options.rounds()).append(",\n");
        json.append("  \"calls\": ").append(options.calls()).append(",\n");
        json.append("  \"batches\": ").append(options.batches()).append(",\n");
        json.append("  \"warmup\": ").append(options.warmup()).append(",\n");
        json.append("  \"loads\": ").append(strings(options.loads())).append(",\n");
        json.append("  \"transports\": ").append(strings(options.transports())).append(",\n");
        json.append("  \"kernels\": ").append(strings(options.kernels())).append(",\n");
        List<String> cells = new ArrayList<>();
        List<String> worst = new ArrayList<>();
        for (String load : options.loads()) {
            for (Column column : options.columns()) {
                for (String kernel : options.kernels()) {
                    cells.add(cell(results, load, column, kernel));
                }
                if (column.withAgent()) {
                    results.worst(load, column).ifPresent(w -> worst.add("{\"load\": " + string(load) + ", \"transport\": "
                            + string(column.name()) + ", \"kernel\": " + string(w.kernel()) + ", \"ratio\": "
                            + number(w.ratio()) + "}"));
                }
            }
        }
        json.append("  \"cells\": [\n    ").append(String.join(",\n    ", cells)).append("\n  ],\n");
        json.append("  \"worst\": [\n    ").append(String.join(",\n    ", worst)).append("\n  ]\n}\n");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, json);
    }

    private static String cell(Results results, String load, Column column, String kernel) {
        Cell cell = results.cell(load, column, kernel);
        Set<Integer> timed = cell.timedRounds();
        List<String> rounds = new ArrayList<>();
        for (Map.Entry<Integer, Outcome> entry : cell.rounds().entrySet()) {
            Outcome o = entry.getValue();
            String fields = o.isTimed()
                    ? "\"median_us\": " + number(o.medianMicros()) + ", \"p99_us\": " + number(o.p99Micros()) + ", \"calls\": " + o.calls()
                            + ", \"cpu_us_per_call\": " + number(o.cpuMicrosPerCall()) + ", \"switches_per_call\": " + number(o.switchesPerCall())
                    : o.error() != null ? "\"error\": " + string(o.error()) : "\"unavailable\": " + string(o.unavailable());
            rounds.add("{\"round\": " + entry.getKey() + ", " + fields + "}");
        }
        return "{\"load\": " + string(load) + ", \"column\": " + string(column.name()) + ", \"agent\": " + column.withAgent()
                + ", \"kernel\": " + string(kernel) + ", \"median_us\": " + number(cell.medianOfMedians(timed))
                + ", \"p99_us\": " + number(cell.medianOfP99s(timed))
                + ", \"cpu_us_per_call\": " + number(cell.medianOfCpu(timed))
                + ", \"switches_per_call\": " + number(cell.medianOfSwitches(timed))
                + ", \"cpu_ratio\": " + (column.withAgent() ? number(results.cpuRatio(load, column, kernel)) : "null")
                + ", \"ratio\": " + (column.withAgent() ? number(results.ratio(load, column, kernel)) : "null")
                + ", \"round_ratio_range\": " + (column.withAgent() ? results.roundRatioRange(load, column, kernel)
                        .map(r -> "[" + number(r[0]) + ", " + number(r[1]) + "]").orElse("null") : "null")
                + ", \"rounds\": [" + String.join(", ", rounds) + "]}";
    }

    private static String number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static String strings(List<String> values) {
        List<String> quoted = new ArrayList<>();
        values.forEach(v -> quoted.add(string(v)));
        return "[" + String.join(", ", quoted) + "]";
    }

    private static String string(String value) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
