package org.cudaipc4j.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.cudaipc4j.simpleipc.TempLeftovers;

/**
 * The bench's temporary files and folders: {@code cudaipc4j-bench-<pid>-<random>} in the temporary folder, removed
 * after use and at this JVM's exit. Those a bench killed by SIGKILL left are removed when the next bench makes its
 * first ({@link TempLeftovers}), with the phase-log folders its runs' parents left.
 */
final class BenchTempFiles {
    private static final Pattern LEFT = Pattern.compile("cudaipc4j-bench-([0-9]{1,10})-[0-9]+(\\.json)?");
    private static boolean swept;

    private BenchTempFiles() {}

    private static synchronized String prefix() {
        if (!swept) {
            swept = true;
            TempLeftovers.sweep(TempLeftovers.directory(), LEFT);
            TempLeftovers.sweepPhaseFolders(); // its runs leave theirs to it (see PhaseFiles)
        }
        return "cudaipc4j-bench-" + ProcessHandle.current().pid() + "-";
    }

    /** {@return a new file for a run's JSON report, removed at this JVM's exit at the latest} */
    static Path reportFile() {
        try {
            Path report = Files.createTempFile(prefix(), ".json");
            report.toFile().deleteOnExit(); // removed after the run; this covers a bench ended by a signal
            return report;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary report file", e);
        }
    }

    /** {@return a new empty folder, removed at this JVM's exit at the latest while it is empty} */
    static Path emptyDirectory() {
        try {
            Path dir = Files.createTempDirectory(prefix());
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a temporary folder", e);
        }
    }
}
