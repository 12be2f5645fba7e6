package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.RoundingMode;
import org.junit.jupiter.api.Test;

class ClockTest {
    @Test
    void secondsAreWrittenWithTwoDecimalsRoundedHalfUp() {
        assertEquals("0.00", Clock.seconds(0));
        assertEquals("0.00", Clock.seconds(4_999));
        assertEquals("0.01", Clock.seconds(5_000));
        assertEquals("0.45", Clock.seconds(453_000));
        assertEquals("1.00", Clock.seconds(995_000));
        assertEquals("12.35", Clock.seconds(12_345_678));
        assertEquals("0.00", Clock.seconds(-20_000), "a clock step back is no negative time");
        for (long micros = 0; micros < 3_000_000; micros += 1_237) {
            String expected = BigDecimal.valueOf(micros).movePointLeft(6).setScale(2, RoundingMode.HALF_UP)
                    .toPlainString();
            assertEquals(expected, Clock.seconds(micros), micros + " us");
        }
    }

    @Test
    void aRunStartsWhenTheLauncherSaysItsBuildEndedElseWithItsProcess() {
        long process = 1_000_000_000L;
        long now = process + 20_000_000;
        assertEquals(process + 15_000_000, Clock.runStartMicros(process, Long.toString(process + 15_000_000), now),
                "built and trained for 15 s first: the run starts after that");
        assertEquals(process, Clock.runStartMicros(process, null, now));
        assertEquals(process, Clock.runStartMicros(process, Long.toString(process - 5), now),
                "a mark inherited from a parent's launcher is before this process: its own start counts");
        assertEquals(process, Clock.runStartMicros(process, Long.toString(now + 1), now), "a mark in the future");
        assertEquals(process, Clock.runStartMicros(process, "12.5", now));
        assertEquals(process, Clock.runStartMicros(process, "99999999999999999999", now));
    }
}
