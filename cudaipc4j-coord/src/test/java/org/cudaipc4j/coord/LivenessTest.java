package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The silence limit's text: plain seconds read directly, every other number as BigDecimal reads it. */
class LivenessTest {
    @Test
    void plainSecondsAndOtherNumbersGiveTheSameLimits() {
        assertEquals(Liveness.DEFAULT_SILENCE_LIMIT, Liveness.silenceLimitFrom(null));
        assertEquals(Liveness.DEFAULT_SILENCE_LIMIT, Liveness.silenceLimitFrom(" "));
        assertEquals(Duration.ofSeconds(3), Liveness.silenceLimitFrom("3"));
        assertEquals(Duration.ofMillis(1500), Liveness.silenceLimitFrom(" 1.5 "));
        assertEquals(Duration.ofMillis(1), Liveness.silenceLimitFrom("0.001"));
        assertEquals(Duration.ofSeconds(2), Liveness.silenceLimitFrom("2."));
        assertEquals(Duration.ofSeconds(123_456_789, 123_456_789), Liveness.silenceLimitFrom("123456789.123456789"));
        // Not plain: BigDecimal's reading.
        assertEquals(Duration.ofMillis(500), Liveness.silenceLimitFrom(".5"));
        assertEquals(Duration.ofSeconds(10), Liveness.silenceLimitFrom("1e1"));
        assertEquals(Duration.ofSeconds(2), Liveness.silenceLimitFrom("+2"));
        assertEquals(Duration.ofSeconds(1), Liveness.silenceLimitFrom("1.0000000000"));
        assertEquals(Duration.ofSeconds(1_000_000_000), Liveness.silenceLimitFrom("1000000000"));
    }

    @Test
    void whatIsNoLimitIsRefusedInOneLine() {
        for (String bad : new String[] {"soon", "0", "0.0", "-1", "0.0001", "1.0000000001", "1e999", ".", "1.2.3",
                "99999999999"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Liveness.silenceLimitFrom(bad), bad);
            assertEquals("CUDAIPC4J_HEARTBEAT_TIMEOUT=" + bad + " is not a number of seconds of at least 0.001",
                    e.getMessage());
        }
    }
}
