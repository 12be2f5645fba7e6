package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.coord.SharedSegment;

/**
 * The counter files one {@link TorchTupleExport} made, written down beside them, so that those of a JVM that ended
 * without closing its exports (SIGKILL, a crash, an OOM kill) are removed by the next export in that directory: a
 * file {@code cudaipc4j-torchtuple-<pid>-<random>}, mode 0600, one counter-file name per line. Torch's own counter
 * files ({@code torch_<pid>_*} of torch processes) are never named there, so never touched.
 */
final class TupleCounterRecord {
    /** The records' name prefix; the creator's pid follows. */
    static final String PREFIX = "cudaipc4j-torchtuple-";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "([0-9]{1,10})-[0-9]+");
    /** Directories reaped by this JVM already. */
    private static final Set<Path> REAPED = ConcurrentHashMap.newKeySet();

    private final Path path;

    private TupleCounterRecord(Path path) {
        this.path = path;
    }

    /**
     * A new, empty record of this process in {@code directory}; before the first, the records of ended processes
     * there are reaped ({@link #reapStale}), once per directory and JVM.
     */
    static TupleCounterRecord create(Path directory) {
        if (REAPED.add(directory.toAbsolutePath())) {
            reapStale(directory);
        }
        try {
            // createTempFile: a fresh name, mode 0600
            return new TupleCounterRecord(Files.createTempFile(directory,
                    PREFIX + ProcessHandle.current().pid() + "-", ""));
        } catch (IOException e) {
            throw new TorchInteropException("cannot make the record of torch counter files in " + directory + ": "
                    + e.getMessage(), e);
        }
    }

    /** {@return the record's file} */
    Path path() {
        return path;
    }

    /** Writes down {@code counterName}, a counter file this process made beside the record. */
    void add(String counterName) {
        try {
            Files.writeString(path, counterName + "\n", StandardCharsets.US_ASCII, StandardOpenOption.APPEND,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new TorchInteropException("cannot write down torch counter file " + counterName + " in " + path
                    + ": " + e.getMessage(), e);
        }
    }

    /** Removes the record (its counter files are removed already). */
    void delete() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new TorchInteropException("cannot remove " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Removes, in {@code directory}, the counter files written down in records of this user whose creator has
     * ended, then those records. A line that is no counter name of the record's creator ({@code /torch_<pid>_...}
     * with the record's pid) is ignored, as is a file of another user. Best effort: what cannot be removed stays.
     *
     * @return how many counter files were removed
     */
    static int reapStale(Path directory) {
        int removed = 0;
        long uid = Libc.getuid();
        try (DirectoryStream<Path> records = Files.newDirectoryStream(directory, PREFIX + "*")) {
            for (Path record : records) {
                Matcher m = NAME.matcher(record.getFileName().toString());
                if (!m.matches() || uid(record) != uid || !Files.isRegularFile(record, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                try {
                    if (SharedSegment.writerAlive(pid, Files.getLastModifiedTime(record, LinkOption.NOFOLLOW_LINKS))) {
                        continue;
                    }
                    List<String> names = Files.readAllLines(record, StandardCharsets.US_ASCII);
                    for (String name : names) {
                        if (ownName(name, pid)) {
                            Path file = TorchCounterFile.pathOf(directory, name);
                            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && uid(file) == uid
                                    && Files.deleteIfExists(file)) {
                                removed++;
                            }
                        }
                    }
                    Files.deleteIfExists(record);
                } catch (NoSuchFileException raced) {
                    // removed meanwhile, by its creator or another reaper
                } catch (IOException | RuntimeException e) {
                    // best effort: the next reaper tries again
                }
            }
        } catch (IOException e) {
            return removed;
        }
        return removed;
    }

    /** Whether {@code name} is a counter name of process {@code pid}: {@code /torch_<pid>_<random>_<n>}. */
    static boolean ownName(String name, long pid) {
        try {
            TorchCounterFile.checkName(name);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return name.startsWith("/torch_" + pid + "_");
    }

    private static long uid(Path path) {
        try {
            return ((Number) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
