package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The CUDA driver's files in {@code /dev/shm} ({@code cuda.shm.<n>.<pid in hex>.<m>}, a process's interprocess
 * state), for tests that start CUDA processes of other languages. A torch process leaves its file behind even when it
 * exits normally: the driver removes it when the process's context is torn down, which torch never does (a C program
 * that exits without {@code cudaDeviceReset} leaves it too). So a test removes the files of such a child once it has
 * ended ({@link #removeWhenEnded}).
 *
 * <p>As an extension ({@code @ExtendWith(DriverFileLeaks.class)}) it fails every test after which a driver file is
 * left that was not there before it and whose process has ended (those are removed, so the next test starts clean).
 */
public final class DriverFileLeaks implements BeforeEachCallback, AfterEachCallback {
    private static final Path DIRECTORY = Path.of("/dev/shm");
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DriverFileLeaks.class);
    /** How long a child's removal, run when its exit is seen, may take to happen after the test. */
    private static final long SETTLE_MILLIS = 5_000;

    /** For JUnit. */
    public DriverFileLeaks() {}

    /** The names of the driver's files now in {@code /dev/shm}, sorted. */
    public static Set<String> names() {
        Set<String> names = new TreeSet<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(DIRECTORY, "cuda.shm.*")) {
            for (Path f : all) {
                names.add(f.getFileName().toString());
            }
        } catch (IOException | RuntimeException e) {
            return names; // no /dev/shm, or not readable: no driver file to find
        }
        return names;
    }

    /**
     * The pid a driver file's name carries ({@code cuda.shm.<n>.<pid in hex>.<m>}), or -1. The same rule as
     * {@code org.cudaipc4j.cuda.ipc.DriverFiles.producer}, which this module cannot use: cuda's tests depend on it.
     */
    public static long producer(String name) {
        String[] parts = name.split("\\.");
        if (parts.length != 5 || !parts[0].equals("cuda") || !parts[1].equals("shm")) {
            return -1;
        }
        try {
            return Long.parseLong(parts[3], 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The names of process {@code pid}'s driver files. */
    public static List<String> of(long pid) {
        return names().stream().filter(n -> producer(n) == pid).toList();
    }

    /**
     * Removes the driver files of process {@code pid} if it has ended (a live process's driver still uses them);
     * returns the names removed.
     */
    public static List<String> removeOf(long pid) {
        return ProcessHandle.of(pid).isPresent() ? List.of() : remove(pid);
    }

    /**
     * Removes process {@code pid}'s driver files as soon as it has ended, however it ends (now, if it already has).
     * The returned stage completes with the names removed.
     */
    public static CompletableFuture<List<String>> removeWhenEnded(long pid) {
        CompletableFuture<?> exit = ProcessHandle.of(pid).<CompletableFuture<?>>map(ProcessHandle::onExit)
                .orElse(CompletableFuture.completedFuture(null));
        return exit.thenApply(ended -> remove(pid));
    }

    private static List<String> remove(long pid) {
        List<String> removed = new ArrayList<>();
        for (String n : of(pid)) {
            try {
                if (Files.deleteIfExists(DIRECTORY.resolve(n))) {
                    removed.add(n);
                }
            } catch (IOException e) {
                // another user's, or gone meanwhile
            }
        }
        return removed;
    }

    /** Driver files not among {@code before} whose process has ended. */
    public static List<String> leftSince(Set<String> before) {
        return names().stream().filter(n -> !before.contains(n) && ended(n)).toList();
    }

    private static boolean ended(String name) {
        long pid = producer(name);
        return pid > 0 && ProcessHandle.of(pid).isEmpty();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NAMESPACE).put(DriverFileLeaks.class, names());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        @SuppressWarnings("unchecked")
        Set<String> before = (Set<String>) context.getStore(NAMESPACE).remove(DriverFileLeaks.class);
        if (before == null) {
            return;
        }
        Waits.until(SETTLE_MILLIS, () -> leftSince(before).isEmpty());
        List<String> left = leftSince(before);
        for (String n : left) {
            try {
                Files.deleteIfExists(DIRECTORY.resolve(n));
            } catch (IOException e) {
                // reported below all the same
            }
        }
        assertEquals(List.of(), left, "CUDA driver files of ended processes left in " + DIRECTORY + " (removed now)");
    }
}
