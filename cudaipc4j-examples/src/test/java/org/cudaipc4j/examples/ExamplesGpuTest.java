package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.PythonCupy;
import org.cudaipc4j.testing.ShmLeaks;
import org.junit.jupiter.api.Test;

/** The examples, run as a user would: fresh JVMs on the class path of the libraries alone. */
@GpuTest
class ExamplesGpuTest {
    private static final Duration LIMIT = Duration.ofSeconds(180);

    @Test
    void twoJvmsShareABufferAndAnEvent() {
        JavaProcess.Result r = JavaProcess.run(LIMIT, SharedBufferExample.class, List.of(),
                Long.toString((64L << 20) + 5));
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(r.stdout().contains("[0] child: read the parent's 67108869 bytes and wrote its own"), r.describe());
        assertTrue(r.stdout().contains("parent: the child's 67108869 bytes arrived"), r.describe());
        assertEquals(List.of(), ShmLeaks.segmentsOf(r.pid()), "the parent's control block is gone");
    }

    @Test
    void pythonReadsWhatTheJvmExported() {
        PythonCupy.assumeAvailable();
        JavaProcess.Result r = JavaProcess.run(LIMIT, PythonHandoffExample.class, List.of(),
                Long.toString((16L << 20) + 3));
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(r.stdout().contains("read 16777219 bytes of 7 in place and added 1"), r.describe());
        assertTrue(r.stdout().contains("java: Python's 16777219 bytes arrived"), r.describe());
    }
}
