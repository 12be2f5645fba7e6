package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.interop.OpenPhases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The phases an open is timed by, and a lease's part of them. */
class OpenPhasesTest {
    @TempDir
    Path dir;

    @Test
    void leasingIsTimedAsCounterAndBookAndACacheHitAsCounterOnly() {
        String name = CounterFiles.create(dir, 2);
        TorchStorageKey key = new TorchStorageKey("c:1", 0, 0, 4096);
        try (TorchLeases leases = TorchLeases.start(dir, false, 4)) {
            OpenPhases first = new OpenPhases();
            first.start();
            Lease a = leases.acquire(key, name, 0, first);
            OpenPhases hit = new OpenPhases();
            hit.start();
            Lease b = leases.acquire(key, name, 1, hit);
            assertTrue(first.nanos(OpenPhases.Phase.COUNTER) > 0 && first.nanos(OpenPhases.Phase.BOOK) > 0,
                    first.byCode().toString());
            assertTrue(hit.nanos(OpenPhases.Phase.COUNTER) > 0, hit.byCode().toString());
            assertEquals(0, hit.nanos(OpenPhases.Phase.BOOK), "a hit holds no new slot");
            assertEquals(0, CounterFiles.slot(dir, name, 1), "the hit's slot went back at once");
            b.release();
            a.release();
            assertEquals(0, CounterFiles.slot(dir, name, 0));
        }
    }

    @Test
    void phasesAddUpByCodeInOrderAndClear() {
        OpenPhases p = new OpenPhases();
        p.start();
        p.lap(OpenPhases.Phase.KEY);
        p.lap(OpenPhases.Phase.EVENT_OPEN);
        p.lap(OpenPhases.Phase.KEY);
        Map<String, Long> m = p.byCode();
        assertEquals(List.of("key", "event_open"), List.copyOf(m.keySet()));
        assertEquals(p.nanos(OpenPhases.Phase.KEY), m.get("key"));
        p.clear();
        assertTrue(p.byCode().isEmpty());
        OpenPhases.lap(null, OpenPhases.Phase.VIEW); // an untimed open
    }
}
