package io.fastrmi.netpipe.apps;

import io.fastrmi.netpipe.bench.report.Column;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The speedup plot: per application and column, speedup over stock's 1-worker time against the worker count. */
final class AppPlot {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 600;

    private AppPlot() {
    }

    static Path write(Map<String, Map<Integer, Map<String, AppRunner.Outcome>>> results, List<Column> columns, Path png)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYSeriesCollection series = new XYSeriesCollection();
        for (Map.Entry<String, Map<Integer, Map<String, AppRunner.Outcome>>> app : results.entrySet()) {
            Map<String, AppRunner.Outcome> one = app.getValue().get(1);
            AppRunner.Outcome base = one == null ? null : one.get(Column.STOCK.name());
            if (base == null || !base.ok()) {
                continue; // no stock run on one worker: nothing to measure speedup against
            }
            for (Column column : columns) {
                XYSeries line = new XYSeries(app.getKey().toUpperCase(java.util.Locale.ROOT) + " " + column.name());
                app.getValue().forEach((workers, cells) -> {
                    AppRunner.Outcome cell = cells.get(column.name());
                    if (cell != null && cell.ok()) {
                        line.add(workers.doubleValue(), base.millis() / cell.millis());
                    }
                });
                series.addSeries(line);
            }
        }
        JFreeChart chart = ChartFactory.createXYLineChart("Speedup over stock RMI on one worker", "workers",
                "speedup", series, PlotOrientation.VERTICAL, true, false, false);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
        return png;
    }
}
