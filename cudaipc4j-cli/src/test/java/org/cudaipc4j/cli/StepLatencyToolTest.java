package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.cudaipc4j.bench.StepLatencyBench;
import org.junit.jupiter.api.Test;

/** The step-cost runs of the bench, on the tool itself (in the command line's tests, where the tool's classes are). */
class StepLatencyToolTest {
    @Test
    void eachProcessCountRunsItsPairsAndReportsTheirMedianAndTheHostsOwnTime() {
        StepLatencyBench.Plan plan = new StepLatencyBench.Plan(org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind.HOST, 4096, 30, 3,
                List.of(StepLatencyBench.SIMULATED), List.of(1, 3), Map.of(), null, Main.class.getName());
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
}
