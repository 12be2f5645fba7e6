package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.coord.SharedSegment;

/**
 * What the tool's processes keep in the temporary folder for a while (the children's phase logs, the bench's run
 * reports), each named with the pid of the process that made it and removed by that process, also on a signal. A
 * process killed by SIGKILL removes nothing: the next process that makes such an entry removes those of ended
 * processes, by the rule the shared-memory reaper uses ({@link SharedSegment#writerAlive}), this user's only.
 */
public final class TempLeftovers {
    private TempLeftovers() {}

    /** The children's phase-log folders, named after their parent's block: {@code cudaipc4j-<pid>-<hex>-phases}. */
    private static final Pattern PHASE_FOLDERS = Pattern.compile("cudaipc4j-([0-9]{1,10})-[0-9a-f]+-phases");

    /** Removes the phase-log folders of ended parents from the temporary folder; see {@link #sweep}. */
    public static void sweepPhaseFolders() {
        sweep(directory(), PHASE_FOLDERS);
    }

    /** {@return the temporary folder ({@code java.io.tmpdir})} */
    public static Path directory() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * Removes the entries of {@code dir} whose whole name {@code name} matches, its first group the pid of the
     * process that made it, where that process has ended and the entry is this user's: a file, or a folder with the
     * files in it. An entry that cannot be removed (raced, refused) is left; nothing here throws.
     *
     * @param dir the folder to look in
     * @param name the entries' names, the maker's pid as its first group
     * @return how many entries were removed
     */
    public static int sweep(Path dir, Pattern name) {
        int removed = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            Object self = Files.getAttribute(Path.of("/proc/self"), "unix:uid"); // this process's user
            for (Path entry : entries) {
                Matcher m = name.matcher(entry.getFileName().toString());
                if (m.matches() && remove(entry, Long.parseLong(m.group(1)), self)) {
                    removed++;
                }
            }
        } catch (IOException | RuntimeException e) {
            // no folder, or not readable: nothing to sweep
        }
        return removed;
    }

    private static boolean remove(Path entry, long pid, Object self) {
        try {
            BasicFileAttributes attrs = Files.readAttributes(entry, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (!self.equals(Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                    || SharedSegment.writerAlive(pid, attrs.lastModifiedTime())) {
                return false;
            }
            if (attrs.isDirectory()) {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(entry)) {
                    for (Path f : files) {
                        Files.deleteIfExists(f);
                    }
                }
            } else if (!attrs.isRegularFile()) {
                return false; // a link or a socket: never made by the tool under these names
            }
            return Files.deleteIfExists(entry);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
