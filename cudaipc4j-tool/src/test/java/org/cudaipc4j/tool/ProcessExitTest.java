package org.cudaipc4j.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;

class ProcessExitTest {
    /** Prints its pid and whether its JVM keeps a performance-data file, then ends by {@link ProcessExit#abandon}. */
    public static final class Abandoning {
        public static void main(String[] args) {
            long pid = ProcessHandle.current().pid();
            System.out.println(pid + " " + Files.exists(ProcessExit.perfDataFile(pid)));
            ProcessExit.abandon(3);
        }
    }

    @Test
    void anAbandonedProcessLeavesNoPerformanceDataFile() {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), Abandoning.class,
                List.of("--enable-native-access=ALL-UNNAMED"));
        assertEquals(3, r.exitCode(), r.describe());
        String[] line = r.stdout().strip().split(" ");
        long pid = Long.parseLong(line[0]);
        assumeTrue(Boolean.parseBoolean(line[1]), "this JVM keeps no performance-data file: nothing to check");
        assertFalse(Files.exists(ProcessExit.perfDataFile(pid)), "left: " + ProcessExit.perfDataFile(pid));
    }

    /** Not set: nothing watched. Not this process's parent: gone, at once. No pid of another process: refused. */
    @Test
    void whenGoneEndsAtOnceWhenTheStarterIsNoLongerTheParentAndRefusesWhatIsNoPid() {
        java.util.List<Long> ended = new java.util.ArrayList<>();
        ProcessExit.whenGone("V", null, ended::add);
        ProcessExit.whenGone("V", " ", ended::add);
        assertEquals(List.of(), ended);

        long notTheParent = (1L << 22) + 1;
        ProcessExit.whenGone("V", Long.toString(notTheParent), ended::add);
        assertEquals(List.of(notTheParent), ended);

        for (String bad : List.of("x", "0", "1", "-3", Long.toString(ProcessHandle.current().pid()))) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> ProcessExit.whenGone("V", bad, ended::add), bad);
            assertEquals("V=" + bad + " is not the pid of the process that started this one", e.getMessage());
        }
        assertEquals(1, ended.size());
    }
}
