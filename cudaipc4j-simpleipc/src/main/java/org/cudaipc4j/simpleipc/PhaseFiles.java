package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.cudaipc4j.coord.FreshName;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.tool.ToolSettings;

/**
 * The children's phase logs: a private temporary folder, removed when closed. It is named like a fresh segment,
 * {@code cudaipc4j-<pid>-<random>-phases} ({@code Files.createTempDirectory} would first set up SecureRandom, tens of
 * milliseconds on the start-up path); a name that is taken makes it pick another ({@link FreshName}).
 */
final class PhaseFiles implements AutoCloseable {
    /** What ends the folder's name. */
    static final String SUFFIX = "-phases";
    private final Path dir;
    private final int count;
    /** Removes the folder when the JVM ends before {@link #close} (a signal): null when there is no folder. */
    private final Thread removeAtShutdown;

    PhaseFiles(boolean enabled, int count) {
        this(enabled, () -> SharedSegment.newName(null) + SUFFIX, count);
    }

    /** As {@link #PhaseFiles(boolean, int)}, in the first folder name of {@code names} that is free. */
    PhaseFiles(boolean enabled, Supplier<String> names, int count) {
        this.count = count;
        this.dir = enabled ? FreshName.make(names, PhaseFiles::createFolder) : null;
        removeAtShutdown = dir == null ? null : Thread.ofPlatform().name("cudaipc4j-phase-files")
                .unstarted(this::removeAtShutdown);
        if (removeAtShutdown != null) {
            try {
                Runtime.getRuntime().addShutdownHook(removeAtShutdown);
            } catch (IllegalStateException shuttingDown) {
                close();
                throw new IllegalStateException("cannot log the children's phases: this JVM is shutting down");
            }
        }
    }

    private static Path createFolder(String name) throws FileAlreadyExistsException {
        try {
            return Files.createDirectory(TempLeftovers.directory().resolve(name),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException taken) {
            throw taken;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder for phase logs", e);
        }
    }

    /**
     * At shutdown, while the children may still be ending: a child's log written between the listing and the
     * folder's removal makes another pass; one written after it finds no folder.
     */
    private void removeAtShutdown() {
        for (int pass = 0; pass < 3; pass++) {
            try {
                remove();
                return;
            } catch (UncheckedIOException e) {
                // a log came meanwhile: once more
            }
        }
    }

    boolean enabled() {
        return dir != null;
    }

    Path file(int p) {
        return dir.resolve("child-" + p + ".txt");
    }

    List<java.util.Map<String, Long>> read() {
        List<java.util.Map<String, Long>> all = new ArrayList<>();
        if (dir == null) {
            return all;
        }
        for (int p = 0; p < count; p++) {
            try {
                all.add(Files.exists(file(p)) ? PhaseLog.readFrom(file(p)).marks() : java.util.Map.of());
            } catch (IOException e) {
                all.add(java.util.Map.of());
            }
        }
        return all;
    }

    @Override
    public void close() {
        if (dir != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(removeAtShutdown);
            } catch (IllegalStateException shuttingDown) {
                // the hook removes it, or has
            }
            remove();
        }
        if (!ToolSettings.BENCH_PID.isSet()) {
            // Those of parents killed by SIGKILL with no child left to remove them, after the run's own work, in
            // every run (a run without phase logs too); a bench sweeps them once for all its runs, out of the
            // times it takes.
            TempLeftovers.sweepPhaseFolders();
        }
    }

    private void remove() {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + dir, e);
        }
    }
}
