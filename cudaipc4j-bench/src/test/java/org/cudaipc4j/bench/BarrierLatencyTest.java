package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.cudaipc4j.coord.Supervisor;
import org.cudaipc4j.testing.ShmLeaks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BarrierLatencyTest {
    @AfterEach
    void nothingLeft() {
        ShmLeaks.assertNoneOfThisJvm();
    }

    @Test
    void percentilesUseNearestRank() {
        long[] sorted = new long[100];
        for (int i = 0; i < 100; i++) {
            sorted[i] = (i + 1) * 1000L;
        }
        assertEquals(50_000, BarrierLatency.percentile(sorted, 0.50));
        assertEquals(99_000, BarrierLatency.percentile(sorted, 0.99));
        assertEquals(1000, BarrierLatency.percentile(sorted, 0.0));
        assertEquals(7, BarrierLatency.percentile(new long[] {7}, 0.99));
        BarrierLatency.Result r = BarrierLatency.summarize(2, 50, new long[] {5000, 1000, 3000, 2000}, Duration.ZERO);
        assertEquals(2.0, r.medianMicros());
        assertEquals(5.0, r.p99Micros());
        assertEquals(1.0, r.minMicros());
        assertEquals(5.0, r.maxMicros());
        assertEquals(2.75, r.meanMicros());
        assertEquals(4, r.samples());
    }

    @Test
    void measuresEveryRoundOfEveryProcess() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        BarrierLatency.Result r = BarrierLatency.measure(3, 500, 50,
                Supervisor.Options.defaults().withOutput(out, out));
        assertEquals(3, r.processes());
        assertEquals(500, r.rounds());
        assertEquals(1500, r.samples());
        assertTrue(r.minMicros() > 0, r.describe());
        assertTrue(r.minMicros() <= r.medianMicros() && r.medianMicros() <= r.p99Micros()
                && r.p99Micros() <= r.maxMicros(), r.describe());
        assertTrue(r.describe().startsWith("  3 processes: median "), r.describe());
        assertEquals("", bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> BarrierLatency.measure(0, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> BarrierLatency.measure(2, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> BarrierLatency.measure(2, 10, -1));
    }
}
