package org.cudaipc4j.cuda.ipc;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The files the CUDA driver keeps in {@code /dev/shm} for a process's interprocess state, named
 * {@code cuda.shm.<n>.<pid in hex>.<m>}. The driver removes a process's files when the process ends normally; a
 * process that is killed, or that ends with {@code _exit} (skipping the driver's at-exit handler), leaves them
 * behind. So do torch processes that shared a tensor or an interprocess event, even at a normal exit (torch 2.11;
 * not when the primary context was reset before the exit). Whoever learns that a process of its group died removes that process's files ({@link #removeOf}); a
 * process that leaves with {@code _exit} removes its own first.
 */
public final class DriverFiles {
    private static final Path DIRECTORY = Path.of("/dev/shm");

    private DriverFiles() {}

    /**
     * {@return the driver's files of process {@code pid}}
     *
     * @param pid the process id
     */
    public static List<Path> of(long pid) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(DIRECTORY, "cuda.shm.*")) {
            for (Path f : all) {
                if (producer(f.getFileName().toString()) == pid) {
                    files.add(f);
                }
            }
        } catch (IOException | RuntimeException e) {
            return files; // no /dev/shm, or not readable: nothing of ours to find
        }
        return files;
    }

    /**
     * Removes the driver's files of process {@code pid}, which must have ended (or be about to end): a live process's
     * driver still uses them. Returns how many were removed.
     *
     * @param pid the process id
     * @return how many files were removed
     */
    public static int removeOf(long pid) {
        int removed = 0;
        for (Path f : of(pid)) {
            try {
                if (Files.deleteIfExists(f)) {
                    removed++;
                }
            } catch (IOException e) {
                // Another user's, or gone meanwhile.
            }
        }
        return removed;
    }

    /**
     * {@return the pid a driver file's name carries ({@code cuda.shm.<n>.<pid in hex>.<m>}), or -1}
     *
     * @param name a file name
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
}
