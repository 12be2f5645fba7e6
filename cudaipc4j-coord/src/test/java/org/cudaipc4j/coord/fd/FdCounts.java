package org.cudaipc4j.coord.fd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * This process's descriptors as {@code /proc/self/fd} names them, for leak checks of particular objects: what a
 * descriptor refers to ({@code socket:[inode]}, {@code /memfd:name (deleted)}) tells the object's own descriptors
 * from those the rest of the JVM opens meanwhile.
 */
final class FdCounts {
    private FdCounts() {}

    /** What descriptor {@code fd} refers to, or null when it is not open. */
    static String target(int fd) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd))).toString();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The descriptors open now that refer to {@code target}, in ascending order. */
    static List<Integer> referringTo(String target) {
        List<Integer> found = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                int number = Integer.parseInt(fd.getFileName().toString());
                if (target.equals(target(number))) {
                    found.add(number);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        found.sort(null);
        return found;
    }

    /** The sockets open now ({@code socket:[inode]}), for a check that code which opens sockets closes them all. */
    static List<String> sockets() {
        List<String> found = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                String t = target(Integer.parseInt(fd.getFileName().toString()));
                if (t != null && t.startsWith("socket:")) {
                    found.add(t);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        found.sort(null);
        return found;
    }
}
