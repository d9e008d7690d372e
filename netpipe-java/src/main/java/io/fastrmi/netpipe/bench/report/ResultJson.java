package io.fastrmi.netpipe.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The results as JSON: the run's settings, one entry per load, column and kernel with its medians,
 * ratio and every round's raw outcome, and the worst ratio of each transport per load. Figures are
 * rounded to three decimals; one that is not a number is null.
 */
public final class ResultJson {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultJson() {
    }

    public static void write(Results results, String started, String hosts, Path file) throws IOException {
        BenchOptions options = results.options();
        ObjectNode json = JSON.createObjectNode();
        json.put("started", started);
        json.put("jdk", options.jdk().version());
        json.put("hosts", options.hosts());
        json.put("hosts_detail", hosts);
        json.put("processors", Runtime.getRuntime().availableProcessors());
        json.put("rounds", options.rounds());
        json.put("calls", options.calls());
        json.put("batches", options.batches());
        json.put("warmup", options.warmup());
        strings(json.putArray("loads"), options.loads());
        strings(json.putArray("transports"), options.transports());
        strings(json.putArray("kernels"), options.kernels());
        ArrayNode cells = json.putArray("cells");
        ArrayNode worst = json.putArray("worst");
        for (String load : options.loads()) {
            for (Column column : options.columns()) {
                for (String kernel : options.kernels()) {
                    cell(cells.addObject(), results, load, column, kernel);
                }
                if (column.withAgent()) {
                    results.worst(load, column).ifPresent(w -> {
                        ObjectNode entry = worst.addObject().put("load", load).put("transport", column.name())
                                .put("kernel", w.kernel());
                        number(entry, "ratio", w.ratio());
                    });
                }
            }
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), json);
    }

    private static void cell(ObjectNode json, Results results, String load, Column column, String kernel) {
        Cell cell = results.cell(load, column, kernel);
        Set<Integer> timed = cell.timedRounds();
        json.put("load", load).put("column", column.name()).put("agent", column.withAgent()).put("kernel", kernel);
        number(json, "median_us", cell.medianOfMedians(timed));
        number(json, "p99_us", cell.medianOfP99s(timed));
        number(json, "cpu_us_per_call", cell.medianOfCpu(timed));
        number(json, "switches_per_call", cell.medianOfSwitches(timed));
        number(json, "cpu_ratio", column.withAgent() ? results.cpuRatio(load, column, kernel) : Double.NaN);
        number(json, "ratio", column.withAgent() ? results.ratio(load, column, kernel) : Double.NaN);
        var range = column.withAgent() ? results.roundRatioRange(load, column, kernel) : java.util.Optional.<double[]>empty();
        if (range.isPresent()) {
            ArrayNode pair = json.putArray("round_ratio_range");
            pair.add(rounded(range.get()[0]));
            pair.add(rounded(range.get()[1]));
        } else {
            json.putNull("round_ratio_range");
        }
        ArrayNode rounds = json.putArray("rounds");
        for (Map.Entry<Integer, Outcome> entry : cell.rounds().entrySet()) {
            Outcome o = entry.getValue();
            ObjectNode round = rounds.addObject().put("round", entry.getKey());
            if (o.isTimed()) {
                number(round, "median_us", o.medianMicros());
                number(round, "p99_us", o.p99Micros());
                round.put("calls", o.calls());
                number(round, "cpu_us_per_call", o.cpuMicrosPerCall());
                number(round, "switches_per_call", o.switchesPerCall());
            } else if (o.error() != null) {
                round.put("error", o.error());
            } else {
                round.put("unavailable", o.unavailable());
            }
        }
    }

    private static void number(ObjectNode json, String key, double value) {
        BigDecimal rounded = rounded(value);
        if (rounded == null) {
            json.putNull(key);
        } else {
            json.put(key, rounded);
        }
    }

    /** Three decimals, or null for what is not a number. */
    private static BigDecimal rounded(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? null : BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_UP);
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }
}
