package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;

/** What a child JVM started by {@link JvmCommand} leaves in the temporary folder: no performance-data file. */
class JvmCommandTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    private static Path perfDataFile(long pid) {
        return Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"), Long.toString(pid));
    }

    @Test
    void aChildWritesNoPerformanceDataFileThatAKillWouldLeave() {
        // This JVM has one: a child with the same options but ours would too.
        assertTrue(Files.exists(perfDataFile(ProcessHandle.current().pid())), "this JVM writes performance data");
        try (JavaProcess.Interactive child = JavaProcess.start(JvmCommand.of(PlainChild.class.getName(),
                List.of("print:up", "wait")))) {
            assertEquals("up", child.readLine(LIMIT));
            assertFalse(Files.exists(perfDataFile(child.pid())), "the child's " + perfDataFile(child.pid()));
        }
    }
}
