package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The three wordings of a duration; the rendezvous's lines and NCCL's limits are pinned on both language sides. */
class DurationsTest {
    @Test
    void durationsAreFormattedForPeople() {
        assertEquals("30 s", Durations.format(Duration.ofSeconds(30)));
        assertEquals("1.5 s", Durations.format(Duration.ofMillis(1500)));
        assertEquals("250 ms", Durations.format(Duration.ofMillis(250)));
        assertEquals("0 ms", Durations.format(Duration.ZERO));
        assertEquals("2 min", Durations.format(Duration.ofMinutes(2)));
        assertEquals("1 min 30 s", Durations.format(Duration.ofSeconds(90)));
        assertEquals("1 h 5 min", Durations.format(Duration.ofMinutes(65)));
    }

    @Test
    void millisOrSecondsNeverTurnsToMinutes() {
        assertEquals("250 ms", Durations.millisOrSeconds(Duration.ofMillis(250)));
        assertEquals("999 ms", Durations.millisOrSeconds(Duration.ofNanos(999_999_999)));
        assertEquals("3 s", Durations.millisOrSeconds(Duration.ofSeconds(3)));
        assertEquals("1.5 s", Durations.millisOrSeconds(Duration.ofMillis(1500)));
        assertEquals("120 s", Durations.millisOrSeconds(Duration.ofMinutes(2)));
        assertEquals("90.5 s", Durations.millisOrSeconds(Duration.ofMillis(90_500)));
    }

    @Test
    void theLimitIsGivenInSeconds() {
        assertEquals("1.5 s", Durations.seconds(Duration.ofMillis(1500)));
        assertEquals("120.0 s", Durations.seconds(Duration.ofMinutes(2)));
        assertEquals("0.0 s", Durations.seconds(Duration.ofMillis(40)));
        // A silence of 3.04999 s is 3.0 s; from 3.05 s on, 3.1 s (the sub-millisecond part never tips it).
        assertEquals("3.0 s", Durations.seconds(Duration.ofNanos(3_049_999_999L)));
        assertEquals("3.1 s", Durations.seconds(Duration.ofNanos(3_050_000_001L)));
    }
}
