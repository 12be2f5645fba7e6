package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndToEndBenchTest {
    /** A run where the child's own start-up, not the parent's, decides when it can attach. */
    private static Map<String, Double> run() {
        Map<String, Double> t = new LinkedHashMap<>();
        Object[][] marks = {
            {"p.spawned", 0}, {"p.main", 50}, {"p.childrenStarted", 55}, {"p.blockCreated", 120}, {"p.cuInit", 178}, {"p.driver", 180},
            {"p.selected", 181}, {"p.assigned", 185}, {"p.prepared", 270}, {"p.exported", 272}, {"c.main", 150},
            {"c.joined", 175}, {"c.driver", 200}, {"c.assigned", 201}, {"c.attached", 290}, {"c.ready", 291},
            {"c.opened", 296}, {"c.steps", 300}, {"c.verified", 304}, {"c.released", 305}, {"c.exit", 350},
            {"p.released", 306}, {"p.freed", 348}, {"p.childrenDone", 360}, {"p.teardown", 361}, {"p.exit", 363},
            {"p.reportWritten", 364}, {"p.reaped", 430},
        };
        for (Object[] m : marks) {
            t.put((String) m[0], ((Integer) m[1]).doubleValue());
        }
        return t;
    }

    @Test
    void theCriticalPathFollowsTheLatestPredecessorAndAddsUpToTheWallTime() {
        Map<String, Double> path = EndToEndBench.criticalPath(run());
        assertEquals(List.of("parent JVM start", "child spawn", "child JVM start",
                "child driver init", "child gets its device", "child context + stream + module",
                "child gets the handles", "handle open", "steps", "verification", "child closes its mappings",
                "child teardown", "child exit + reap", "parent cleanup", "parent report",
                "parent writes the report file", "parent JVM exit"), List.copyOf(path.keySet()));
        assertEquals(430.0, path.values().stream().mapToDouble(Double::doubleValue).sum(), 1e-9);
        assertEquals(50.0, path.get("child driver init"));
        assertEquals(66.0, path.get("parent JVM exit"));
    }

    @Test
    void whenTheParentIsLateThePathGoesThroughItsContext() {
        Map<String, Double> t = run();
        t.put("p.prepared", 295.0);
        t.put("p.exported", 297.0);
        t.put("c.ready", 298.0);
        t.put("c.opened", 299.0);
        Map<String, Double> path = EndToEndBench.criticalPath(t);
        assertEquals(128.0, path.get("parent driver init"), "from main: the driver starts first, on its own thread");
        assertEquals(2.0, path.get("parent waits for its driver"));
        assertEquals(110.0, path.get("parent context + peer enabling"));
        assertEquals(2.0, path.get("allocation + export"));
        assertEquals(430.0, path.values().stream().mapToDouble(Double::doubleValue).sum(), 1e-9);
    }

    @Test
    void whenTheBlockIsLateTheChildWaitsForItsCreation() {
        Map<String, Double> t = run();
        t.put("p.blockCreated", 198.0);
        t.put("c.joined", 200.5);
        t.put("p.driver", 199.0);
        Map<String, Double> path = EndToEndBench.criticalPath(t);
        assertEquals(List.of("parent JVM start", "child spawn", "control block", "child join (shared memory)",
                "child gets its device"), List.copyOf(path.keySet()).subList(0, 5));
        assertEquals(143.0, path.get("control block"));
        assertEquals(430.0, path.values().stream().mapToDouble(Double::doubleValue).sum(), 1e-9);
    }

    @Test
    void eachPhaseOnItsOwnIsMeasuredWithinItsProcess() {
        Map<String, Double> own = EndToEndBench.ownPhases(run());
        assertEquals(85.0, own.get("parent context + peer enabling"));
        assertEquals(25.0, own.get("child join (shared memory)"));
        assertEquals(89.0, own.get("child context + stream + module"));
        assertEquals(42.0, own.get("parent frees + releases its context"));
    }
}
