package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LayoutsTest {
    @Test
    void alignUpRoundsToTheNextMultiple() {
        assertEquals(0, Layouts.alignUp(0, 8));
        assertEquals(8, Layouts.alignUp(1, 8));
        assertEquals(8, Layouts.alignUp(8, 8));
        assertEquals(16, Layouts.alignUp(9, 8));
        assertEquals(2L << 20, Layouts.alignUp((1L << 20) + 1, 2L << 20));
    }
}
