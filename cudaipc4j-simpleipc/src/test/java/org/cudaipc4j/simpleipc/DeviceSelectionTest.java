package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceSelectionTest {
    @Test
    void keepsTheOrdinalsInTheirOrderAsACopy() {
        List<Integer> given = new ArrayList<>(List.of(2, 0, 1));
        DeviceSelection s = new DeviceSelection(given);
        given.add(3);
        assertEquals(List.of(2, 0, 1), s.ordinals());
        assertTrue(DeviceSelection.all().isAll());
        assertFalse(s.isAll());
    }

    @Test
    void refusesANegativeOrRepeatedOrdinal() {
        for (List<Integer> bad : List.of(List.of(-1), List.of(0, 1, 0), List.of(1, 1), List.of(0, -2))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DeviceSelection(bad));
            assertEquals("device ordinals must be distinct and not negative: " + bad, e.getMessage());
        }
    }
}
