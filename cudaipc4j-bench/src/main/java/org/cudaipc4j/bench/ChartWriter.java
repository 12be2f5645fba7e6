package org.cudaipc4j.bench;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** PNG charts of benchmark results: phases as stacked bars, bandwidth against buffer size. */
final class ChartWriter {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    private ChartWriter() {}

    /**
     * One horizontal stacked bar per configuration, one segment per critical-path phase (milliseconds).
     *
     * @param phasesByConfig configuration label -> phase -> milliseconds, in display order
     */
    static void phases(Map<String, Map<String, Double>> phasesByConfig, String title, Path png) {
        write(phasesChart(phasesByConfig, title), png, 1100, 220 + 70 * phasesByConfig.size());
    }

    static JFreeChart phasesChart(Map<String, Map<String, Double>> phasesByConfig, String title) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        phasesByConfig.forEach((config, phases) -> phases.forEach((phase, ms) -> data.addValue(ms, phase, config)));
        JFreeChart chart = ChartFactory.createStackedBarChart(title, null, "milliseconds", data,
                PlotOrientation.HORIZONTAL, true, false, false);
        chart.setBackgroundPaint(Color.WHITE);
        var renderer = chart.getCategoryPlot().getRenderer();
        for (int i = 0; i < data.getRowCount(); i++) {
            renderer.setSeriesPaint(i, colour(i));
        }
        return chart;
    }

    /**
     * Bandwidth in GB/s against buffer size in bytes, one line per series.
     *
     * @param series label -> list of {bytes, GB/s} points
     */
    static void bandwidth(Map<String, List<double[]>> series, String title, Path png) {
        write(bandwidthChart(series, title), png, 900, 520);
    }

    static JFreeChart bandwidthChart(Map<String, List<double[]>> series, String title) {
        JFreeChart chart = ChartFactory.createXYLineChart(title, "buffer size (bytes)", "GB/s", xy(series),
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        LogAxis sizes = new LogAxis("buffer size (bytes, log scale)");
        sizes.setBase(2);
        plot.setDomainAxis(sizes);
        plot.setRenderer(lines(series.size()));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /**
     * Microseconds per step against the process count, one line per series (the measured step costs and the
     * kernels' back-to-back times).
     *
     * @param series label -> list of {processes, microseconds} points
     */
    static void stepCosts(Map<String, List<double[]>> series, String title, Path png) {
        write(stepCostsChart(series, title), png, 900, 560);
    }

    static JFreeChart stepCostsChart(Map<String, List<double[]>> series, String title) {
        JFreeChart chart = ChartFactory.createXYLineChart(title, "processes on the GPU", "microseconds per step",
                xy(series), PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        LogAxis processes = new LogAxis("processes on the GPU (log scale)");
        processes.setBase(2);
        processes.setTickUnit(new NumberTickUnit(1)); // a tick per power of two
        processes.setNumberFormatOverride(new DecimalFormat("0"));
        plot.setDomainAxis(processes);
        LogAxis micros = new LogAxis("microseconds per step (log scale)");
        micros.setNumberFormatOverride(new DecimalFormat("0.#"));
        plot.setRangeAxis(micros);
        plot.setRenderer(lines(series.size()));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** Lines with points, a colour of its own for each of {@code count} series. */
    private static XYLineAndShapeRenderer lines(int count) {
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < count; i++) {
            renderer.setSeriesPaint(i, colour(i));
        }
        return renderer;
    }

    /**
     * Colours told apart on white, one per series: a fixed palette (Tableau's ten, then darker and lighter
     * companions), then hues a golden angle apart, so that no two series of a chart share one.
     */
    private static final int[] PALETTE = {
        0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC,
        0x1F3A5F, 0x8C4A00, 0x7A1F1F, 0x2F6F6A, 0x2E5A27, 0x8A7200, 0x5E3A57, 0xC2185B, 0x4E342E, 0x616161,
    };

    static Color colour(int series) {
        if (series < PALETTE.length) {
            return new Color(PALETTE[series]);
        }
        float hue = (float) (((series - PALETTE.length) * 0.381966) % 1.0);
        float brightness = (series / PALETTE.length) % 2 == 0 ? 0.75f : 0.55f;
        return Color.getHSBColor(hue, 0.8f, brightness);
    }

    /** One XY series per label, in the map's order. */
    private static XYSeriesCollection xy(Map<String, List<double[]>> series) {
        XYSeriesCollection data = new XYSeriesCollection();
        series.forEach((label, points) -> {
            XYSeries s = new XYSeries(label);
            for (double[] p : points) {
                s.add(p[0], p[1]);
            }
            data.addSeries(s);
        });
        return data;
    }

    private static void write(JFreeChart chart, Path png, int width, int height) {
        try {
            ChartUtils.saveChartAsPNG(png.toFile(), chart, width, height);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png, e);
        }
    }
}
