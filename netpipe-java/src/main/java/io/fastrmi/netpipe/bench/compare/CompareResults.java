package io.fastrmi.netpipe.bench.compare;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fastrmi.netpipe.bench.report.Cell;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** A side-by-side run's outcomes: each load's peers' cells, the C floors, and how they are shown. */
public final class CompareResults {

    /** One item of one peer: its time per call in microseconds, or why there is none. */
    record Cell(String status, double callMicros, String why) {
        static Cell timed(double callMicros) {
            return new Cell("ok", callMicros, "");
        }

        static Cell failed(String why) {
            return new Cell("failed", Double.NaN, why);
        }

        /** The agent did not run on its transport: the time would be a fallback's. */
        static Cell unavailable(String why) {
            return new Cell("n/a", Double.NaN, why);
        }

        boolean ok() {
            return status.equals("ok");
        }
    }

    private final ComparePlan plan;
    private final List<ComparePeer> peers;
    private final List<String> loads;
    private final String jdk;
    private final String started;
    private final String hosts;
    private final String settings;
    private final Map<String, Map<String, Map<String, Cell>>> cells = new LinkedHashMap<>();
    private final Map<String, List<CFloors.Floor>> floors = new LinkedHashMap<>();

    /** {@code settings}: what the plan's options were changed to, for the header ("" when nothing). */
    CompareResults(ComparePlan plan, List<ComparePeer> peers, List<String> loads, String jdk, String started, String hosts,
            String settings) {
        this.plan = plan;
        this.peers = peers;
        this.loads = loads;
        this.jdk = jdk;
        this.started = started;
        this.hosts = hosts;
        this.settings = settings;
    }

    void put(String load, ComparePeer peer, Map<String, Cell> peerCells) {
        cells.computeIfAbsent(load, l -> new LinkedHashMap<>()).put(peer.name(), peerCells);
    }

    void putFloors(String load, List<CFloors.Floor> measured) {
        floors.put(load, measured);
    }

    List<ComparePeer> peers() {
        return peers;
    }

    List<String> loads() {
        return loads;
    }

    ComparePlan plan() {
        return plan;
    }

    Cell cell(String load, ComparePeer peer, String item) {
        return cells.getOrDefault(load, Map.of()).getOrDefault(peer.name(), Map.of())
                .getOrDefault(item, Cell.failed("not run"));
    }

    /** The peer's time over stock's for the item in the same load, when both were timed. */
    Optional<Double> ratio(String load, ComparePeer peer, String item) {
        Cell stock = cell(load, ComparePeer.parse("stock"), item);
        Cell cell = cell(load, peer, item);
        return stock.ok() && cell.ok() ? Optional.of(cell.callMicros() / stock.callMicros()) : Optional.empty();
    }

    /** The printed table: per load, each item's time per call (µs) per peer with its ratio to stock. */
    String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "netpipe-java side by side, %s, %s run%s, JDK %s, %d processors, %s%n", started,
                plan.name(), settings, jdk, Runtime.getRuntime().availableProcessors(), hosts));
        out.append("each cell: time per call in us (best trial's mean; a sweep's: its smallest message), and x stock's\n");
        for (String load : loads) {
            out.append(String.format(Locale.ROOT, "%n%s%s%n", load, load.equals("loaded") ? " (as many busy threads as cores)" : ""));
            out.append(String.format(Locale.ROOT, "%-18s", "kernel"));
            for (ComparePeer peer : peers) {
                out.append(String.format(Locale.ROOT, " %20s", peer.label()));
            }
            out.append('\n');
            List<String> failures = new ArrayList<>();
            for (String item : plan.items()) {
                out.append(String.format(Locale.ROOT, "%-18s", item));
                for (ComparePeer peer : peers) {
                    Cell cell = cell(load, peer, item);
                    String text;
                    if (!cell.ok()) {
                        text = cell.status();
                        failures.add(item + " on " + peer.label() + ": " + cell.why());
                    } else if (peer.isStock()) {
                        text = String.format(Locale.ROOT, "%.1f", cell.callMicros());
                    } else {
                        text = String.format(Locale.ROOT, "%.1f (%.2fx)", cell.callMicros(), ratio(load, peer, item).orElse(Double.NaN));
                    }
                    out.append(String.format(Locale.ROOT, " %20s", text));
                }
                out.append('\n');
            }
            for (CFloors.Floor floor : floors.getOrDefault(load, List.of())) {
                out.append(floor.oneWayMicros().map(us -> String.format(Locale.ROOT, "C floor %s: 64 B one way %.2f us, round trip %.2f us%n",
                        floor.name(), us, 2 * us)).orElse("C floor " + floor.name() + ": none (" + floor.why() + ")\n"));
            }
            failures.forEach(f -> out.append("  ").append(f).append('\n'));
        }
        return out.toString();
    }

    void writeJson(Path file) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("started", started);
        json.put("plan", plan.name());
        json.put("plan_changes", settings.isEmpty() ? null : settings.trim());
        json.put("jdk", jdk);
        json.put("processors", Runtime.getRuntime().availableProcessors());
        json.put("hosts", hosts);
        json.put("loads", loads);
        json.put("peers", peers.stream().map(ComparePeer::name).toList());
        json.put("items", plan.items());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String load : loads) {
            for (ComparePeer peer : peers) {
                for (String item : plan.items()) {
                    Cell cell = cell(load, peer, item);
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("load", load);
                    row.put("peer", peer.name());
                    row.put("item", item);
                    row.put("status", cell.status());
                    row.put("call_us", cell.ok() ? cell.callMicros() : null);
                    row.put("ratio_to_stock", ratio(load, peer, item).orElse(null));
                    row.put("why", cell.why().isEmpty() ? null : cell.why());
                    row.put("np_out", "np/" + load + "-" + peer.fileName() + "/" + item.replaceAll("[^A-Za-z0-9_.-]", "_") + ".out");
                    rows.add(row);
                }
            }
        }
        json.put("cells", rows);
        List<Map<String, Object>> floorRows = new ArrayList<>();
        floors.forEach((load, measured) -> measured.forEach(floor -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("load", load);
            row.put("floor", floor.name());
            row.put("one_way_us_64B", floor.oneWayMicros().orElse(null));
            row.put("why", floor.why().isEmpty() ? null : floor.why());
            floorRows.add(row);
        }));
        json.put("floors", floorRows);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
    }
}
