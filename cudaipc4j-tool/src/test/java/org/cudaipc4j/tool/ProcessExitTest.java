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
}
