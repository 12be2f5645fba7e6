package org.cudaipc4j.tool.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StepLatencyBenchTest {
    @Test
    void eachProcessCountRunsItsPairsAndReportsTheirMedianAndTheHostsOwnTime() {
        StepLatencyBench.Plan plan = new StepLatencyBench.Plan("host", 4096, 30, 3,
                List.of(StepLatencyBench.SIMULATED), List.of(1, 3), Map.of(), null);
        AtomicInteger runs = new AtomicInteger();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<StepLatencyBench.Result> results = StepLatencyBench.run(plan,
                new PrintStream(printed, true, StandardCharsets.UTF_8), runs::incrementAndGet);
        // 2 process counts, 3 pairs each, a pair being a shorter and a longer run.
        assertEquals(12, runs.get());
        assertEquals(2, results.size());
        // 30 steps in the shorter run: 30 rounds of 1 process, 10 rounds of 3; the longer has three times as many.
        assertEquals(90, results.get(0).steps());
        assertEquals(90, results.get(1).steps());
        for (StepLatencyBench.Result r : results) {
            assertEquals(3, r.pairMarginals().size(), r.toString());
            List<Double> sorted = r.pairMarginals().stream().sorted().toList();
            assertEquals(sorted.get(1), r.marginalMicrosPerStep(), 1e-9, "the middle of three pairs");
            assertTrue(r.process0().fillLaunchMicros() > 0, r.toString());
            assertTrue(r.process0().ownMicros() >= r.process0().fillLaunchMicros(), r.toString());
            assertTrue(Double.isNaN(r.kernelMicros()), r.toString());
        }
        // A process alone waits for no one: its stream orders the steps.
        assertEquals(0, results.get(0).process0().streamWaitMicros());
        String text = printed.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("Step cost, simulated devices, 1 process:"), text);
        assertTrue(text.contains("(median of pairs "), text);
        assertTrue(text.contains("Step cost, simulated devices, 3 processes:"), text);
    }

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
        Map<String, List<double[]>> series = BenchCommand.stepSeries(
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
        Map<String, List<double[]>> series = BenchCommand.stepSeries(gson.toJsonTree(results).getAsJsonArray());
        assertEquals(List.of("vec16 kernel, step", "vec16 kernel, step under MPS",
                "vec16 kernel, back to back x processes"), List.copyOf(series.keySet()));
        assertEquals(31.0, series.get("vec16 kernel, back to back x processes").get(1)[1], 1e-9);
        assertEquals(1, series.get("vec16 kernel, step under MPS").size(), "a negative marginal is left out");
    }
}
