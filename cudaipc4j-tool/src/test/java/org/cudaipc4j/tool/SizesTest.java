package org.cudaipc4j.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SizesTest {
    @Test
    void parsesBinarySuffixes() {
        assertEquals(1, Sizes.parseBytes("1"));
        assertEquals(4095, Sizes.parseBytes("4095"));
        assertEquals(64L << 20, Sizes.parseBytes("64M"));
        assertEquals(64L << 20, Sizes.parseBytes("64MiB"));
        assertEquals(1L << 30, Sizes.parseBytes("1g"));
        assertEquals(3L << 10, Sizes.parseBytes("3K"));
        assertEquals(2L << 40, Sizes.parseBytes("2T"));
    }

    @Test
    void rejectsGarbageAndOverflow() {
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseBytes("-1"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseBytes("1.5G"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseBytes("G"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseBytes("9000000000000000000K"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseBytes("99999999999999999999"));
    }

    @Test
    void parsesDurations() {
        assertEquals(Duration.ofSeconds(30), Sizes.parseDuration("30"));
        assertEquals(Duration.ofSeconds(30), Sizes.parseDuration("30s"));
        assertEquals(Duration.ofMillis(500), Sizes.parseDuration("500ms"));
        assertEquals(Duration.ofMinutes(2), Sizes.parseDuration("2m"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseDuration("soon"));
    }

    @Test
    void formatsSizes() {
        assertEquals("64 MiB", Sizes.format(64L << 20));
        assertEquals("1 GiB", Sizes.format(1L << 30));
        assertEquals("4095 B", Sizes.format(4095));
        assertEquals("1025 KiB", Sizes.format(1025L << 10));
        assertEquals("1 TiB", Sizes.format(1L << 40));
        assertEquals("23.5 GiB", Sizes.format((47L << 30) / 2 + 12345));
        assertEquals("1536 B", Sizes.format(1536));
        assertEquals("10001 B", Sizes.format(10001));
        assertEquals("19.5 KiB", Sizes.format(20001));
    }
}
