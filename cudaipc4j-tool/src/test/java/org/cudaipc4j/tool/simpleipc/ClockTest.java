package org.cudaipc4j.tool.simpleipc;

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
}
