package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Shared-memory files a process left behind: cudaipc4j names its segments {@code cudaipc4j-<creator pid>-...} in
 * {@code /dev/shm} (or the folder the system property {@code cudaipc4j.shm.dir} names).
 */
public final class ShmLeaks {
    private ShmLeaks() {}

    /** The shared-memory folder in use. */
    public static Path directory() {
        return Path.of(System.getProperty("cudaipc4j.shm.dir", "/dev/shm"));
    }

    /** Segment files created by any of {@code pids}. */
    public static List<Path> segmentsOf(long... pids) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory(), "cudaipc4j-*")) {
            for (Path f : files) {
                for (long pid : pids) {
                    if (f.getFileName().toString().startsWith("cudaipc4j-" + pid + "-")) {
                        found.add(f);
                    }
                }
            }
        } catch (NoSuchFileException e) {
            return found;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return found;
    }

    /** Fails when a segment created by any of {@code pids} is still there. */
    public static void assertNoneOf(long... pids) {
        assertEquals(List.of(), segmentsOf(pids), "segments left in " + directory());
    }

    /** Fails when a segment this JVM created is still there. */
    public static void assertNoneOfThisJvm() {
        assertNoneOf(ProcessHandle.current().pid());
    }
}
