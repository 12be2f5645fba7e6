package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.Paint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItemCollection;
import org.junit.jupiter.api.Test;

/** Every series of a chart has a colour of its own, in the plot and in the legend. */
class ChartWriterTest {
    private static final int SERIES = 40;

    @Test
    void lineChartsGiveEachSeriesItsOwnColour() {
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (int i = 0; i < SERIES; i++) {
            series.put("series " + i, List.of(new double[] {1, i + 1}, new double[] {2, i + 2}));
        }
        assertDistinct(ChartWriter.stepCostsChart(series, "steps"));
        assertDistinct(ChartWriter.bandwidthChart(series, "bandwidth"));
    }

    @Test
    void theStackedBarsGiveEachPhaseItsOwnColour() {
        Map<String, Double> phases = new LinkedHashMap<>();
        for (int i = 0; i < SERIES; i++) {
            phases.put("phase " + i, 1.0 + i);
        }
        assertDistinct(ChartWriter.phasesChart(Map.of("default", phases), "phases"));
    }

    private static void assertDistinct(JFreeChart chart) {
        LegendItemCollection legend = chart.getPlot().getLegendItems();
        assertEquals(SERIES, legend.getItemCount());
        Set<Paint> seen = new HashSet<>();
        List<String> repeated = new ArrayList<>();
        for (int i = 0; i < legend.getItemCount(); i++) {
            if (!seen.add(legend.get(i).getFillPaint())) {
                repeated.add(legend.get(i).getLabel());
            }
        }
        assertEquals(List.of(), repeated, "series whose colour another series has already");
    }
}
