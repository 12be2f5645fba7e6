package org.cudaipc4j.tool.bench;

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
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        phasesByConfig.forEach((config, phases) -> phases.forEach((phase, ms) -> data.addValue(ms, phase, config)));
        JFreeChart chart = ChartFactory.createStackedBarChart(title, null, "milliseconds", data,
                PlotOrientation.HORIZONTAL, true, false, false);
        chart.setBackgroundPaint(Color.WHITE);
        write(chart, png, 1100, 220 + 70 * phasesByConfig.size());
    }

    /**
     * Bandwidth in GB/s against buffer size in bytes, one line per series.
     *
     * @param series label -> list of {bytes, GB/s} points
     */
    static void bandwidth(Map<String, List<double[]>> series, String title, Path png) {
        JFreeChart chart = ChartFactory.createXYLineChart(title, "buffer size (bytes)", "GB/s", xy(series),
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        LogAxis sizes = new LogAxis("buffer size (bytes, log scale)");
        sizes.setBase(2);
        plot.setDomainAxis(sizes);
        plot.setRenderer(new XYLineAndShapeRenderer(true, true));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        chart.setBackgroundPaint(Color.WHITE);
        write(chart, png, 900, 520);
    }

    /**
     * Microseconds per step against the process count, one line per series (the measured step costs and the
     * kernels' back-to-back times).
     *
     * @param series label -> list of {processes, microseconds} points
     */
    static void stepCosts(Map<String, List<double[]>> series, String title, Path png) {
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
        plot.setRenderer(new XYLineAndShapeRenderer(true, true));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        chart.setBackgroundPaint(Color.WHITE);
        write(chart, png, 900, 560);
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
