package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StepLatencyBenchTest {
    @Test
    void theMedianOfAnEvenCountIsTheMeanOfItsMiddleTwo() {
        assertEquals(3.0, StepLatencyBench.median(List.of(9.0, 1.0, 3.0)));
        assertEquals(2.5, StepLatencyBench.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertEquals(-1.0, StepLatencyBench.median(List.of(-1.0)));
    }

    @Test
    void stepResultsOfEarlierBuildsStillMakeAChart() {
        String older = "[{\"processes\": 2, \"steps\": 4000, \"microsPerStep\": 151.2,"
                + " \"marginalMicrosPerStep\": 153.5}]";
        Map<String, List<double[]>> series = BenchCharts.stepSeries(
                com.google.gson.JsonParser.parseString(older).getAsJsonArray());
        assertEquals(List.of("4 KiB buffers, step"), List.copyOf(series.keySet()));
        assertEquals(153.5, series.get("4 KiB buffers, step").getFirst()[1], 1e-9);
    }

    @Test
    void aDaemonIsRunningWhereItsControlPipeIs(@TempDir Path dir) throws IOException {
        Map<String, String> env = Map.of("CUDA_MPS_PIPE_DIRECTORY", dir.toString());
        assertNull(StepLatencyBench.runningMpsDaemon(env));
        Files.createFile(dir.resolve("control"));
        assertEquals(dir, StepLatencyBench.runningMpsDaemon(env));
    }

    @Test
    void theChartShowsEachKernelsStepCostBesideItsGpuFloor() {
        StepLatencyBench.Breakdown b = new StepLatencyBench.Breakdown(0, 1, 2, 1, 0, 10, 0.5);
        List<StepLatencyBench.Result> results = List.of(
                new StepLatencyBench.Result("vec16", false, 1, 1 << 26, 4000, 15.5, 18, 16.4, List.of(16.4), 0.3, b,
                        b),
                new StepLatencyBench.Result("vec16", false, 2, 1 << 26, 4000, 15.5, 200, 190, List.of(190.0), 0.03, b,
                        b),
                new StepLatencyBench.Result("vec16", true, 2, 1 << 26, 4000, 15.5, 40, 33, List.of(33.0), 0.1, b, b),
                new StepLatencyBench.Result("vec16", true, 4, 1 << 26, 4000, 15.5, 40, -3, List.of(-3.0), Double.NaN, b,
                        b));
        Gson gson = new GsonBuilder().serializeSpecialFloatingPointValues().create();
        Map<String, List<double[]>> series = BenchCharts.stepSeries(gson.toJsonTree(results).getAsJsonArray());
        assertEquals(List.of("vec16 kernel, step", "vec16 kernel, step under MPS",
                "vec16 kernel, back to back x processes"), List.copyOf(series.keySet()));
        assertEquals(31.0, series.get("vec16 kernel, back to back x processes").get(1)[1], 1e-9);
        assertEquals(1, series.get("vec16 kernel, step under MPS").size(), "a negative marginal is left out");
    }
}
