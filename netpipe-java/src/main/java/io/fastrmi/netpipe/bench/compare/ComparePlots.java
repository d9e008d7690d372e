package io.fastrmi.netpipe.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The side-by-side run's plots, from its np.out files: for each load and sweep, latency against message
 * size and bandwidth against message size, both on log axes, a line per peer (as NetPIPE users plot
 * np.out).
 */
public final class ComparePlots {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 600;

    private ComparePlots() {
    }

    /** Writes the plots under {@code run/plots}; returns their files. */
    static List<Path> write(CompareResults results, Path run) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Path dir = Files.createDirectories(run.resolve("plots"));
        List<Path> written = new ArrayList<>();
        for (String load : results.loads()) {
            for (String sweep : results.plan().sweeps()) {
                XYSeriesCollection latency = new XYSeriesCollection();
                XYSeriesCollection bandwidth = new XYSeriesCollection();
                for (ComparePeer peer : results.peers()) {
                    Path npOut = run.resolve("np").resolve(load + "-" + peer.fileName()).resolve("sweep-" + sweep + ".out");
                    if (!Files.isRegularFile(npOut)) {
                        continue;
                    }
                    XYSeries us = new XYSeries(peer.label());
                    XYSeries mbps = new XYSeries(peer.label());
                    for (String line : Files.readAllLines(npOut)) {
                        String[] columns = line.trim().split("\\s+");
                        if (columns.length < 3) {
                            continue;
                        }
                        double bytes = Double.parseDouble(columns[0]);
                        us.add(bytes, Double.parseDouble(columns[2]) * 1e6);
                        mbps.add(bytes, Double.parseDouble(columns[1]));
                    }
                    if (!us.isEmpty()) {
                        latency.addSeries(us);
                        bandwidth.addSeries(mbps);
                    }
                }
                if (latency.getSeriesCount() == 0) {
                    continue;
                }
                String title = sweep + " sweep, " + load;
                written.add(save(chart(title + ": latency", "time one way (us)", latency),
                        dir.resolve(load + "-" + sweep + "-latency.png")));
                written.add(save(chart(title + ": bandwidth", "Mbps (2^20 bits/s)", bandwidth),
                        dir.resolve(load + "-" + sweep + "-bandwidth.png")));
            }
        }
        return written;
    }

    private static JFreeChart chart(String title, String yLabel, XYSeriesCollection data) {
        LogAxis x = new LogAxis("message size (bytes)");
        x.setBase(2);
        x.setSmallestValue(1);
        x.setNumberFormatOverride(new DecimalFormat("#,##0"));
        LogAxis y = new LogAxis(yLabel);
        y.setSmallestValue(1e-3);
        y.setNumberFormatOverride(new DecimalFormat("#,##0.###"));
        XYPlot plot = new XYPlot(data, x, y, new XYLineAndShapeRenderer(true, false));
        return new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    }

    private static Path save(JFreeChart chart, Path file) throws IOException {
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        return file;
    }
}
