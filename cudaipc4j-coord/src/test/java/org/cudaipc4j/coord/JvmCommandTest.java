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

/**
 * What a child JVM started by {@link JvmCommand} leaves in the temporary folder (no performance-data file), and the
 * options it inherits from a parent with a long command line.
 */
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

    /**
     * A parent whose command line is longer than a page (a long class path) still passes its options on:
     * {@code ProcessHandle.Info.arguments()} gives none for such a command line.
     */
    @Test
    void aParentWithACommandLineLongerThanAPagePassesItsOptionsOn() {
        StringBuilder classPath = new StringBuilder(JavaProcess.classPath());
        for (int i = 0; i < 400; i++) {
            classPath.append(java.io.File.pathSeparator).append("/nonexistent/entry-").append(i).append(".jar");
        }
        assertTrue(classPath.length() > 8192, "longer than two pages");
        JavaProcess.Result r = JavaProcess.runCommand(LIMIT, List.of(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-Dcudaipc4j.test.inherited=yes", "-Xmx200m", "-cp", classPath.toString(),
                InheritedOptionsChild.class.getName()));
        assertEquals(0, r.exitCode(), r.describe());
        assertTrue(r.stdout().contains("-Dcudaipc4j.test.inherited=yes") && r.stdout().contains("-Xmx200m"),
                "the options a child inherits: " + r.stdout());
    }

    /** Prints the options a child of this JVM inherits. */
    public static final class InheritedOptionsChild {
        private InheritedOptionsChild() {}

        public static void main(String[] args) {
            System.out.println(JvmCommand.inheritedJvmOptions(JvmCommand.ownArguments()));
        }
    }
}
