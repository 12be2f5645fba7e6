package org.cudaipc4j.testing;

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
 * descriptor refers to ({@code socket:[inode]}, {@code /memfd:name (deleted)}, {@code anon_inode:[pidfd]}) tells
 * the object's own descriptors from those the rest of the JVM opens meanwhile.
 */
public final class OpenDescriptors {
    private static final Path SELF = Path.of("/proc/self/fd");

    private OpenDescriptors() {}

    /** What descriptor {@code fd} refers to, or null when it is not open. */
    public static String target(int fd) {
        try {
            return Files.readSymbolicLink(SELF.resolve(Integer.toString(fd))).toString();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The descriptors open now that refer to {@code target}, in ascending order. */
    public static List<Integer> referringTo(String target) {
        List<Integer> found = new ArrayList<>();
        for (int fd : numbers()) {
            if (target.equals(target(fd))) {
                found.add(fd);
            }
        }
        return found;
    }

    /** The sockets open now ({@code socket:[inode]}), for a check that code which opens sockets closes them all. */
    public static List<String> sockets() {
        List<String> found = new ArrayList<>();
        for (int fd : numbers()) {
            String t = target(fd);
            if (t != null && t.startsWith("socket:")) {
                found.add(t);
            }
        }
        found.sort(null);
        return found;
    }

    /** How many descriptors are open now, whatever they refer to. */
    public static int count() {
        return numbers().size();
    }

    /** The numbers of the descriptors open now, in ascending order; the listing's own, closed by then, is left out. */
    private static List<Integer> numbers() {
        List<Integer> listed = new ArrayList<>();
        try (Stream<Path> fds = Files.list(SELF)) {
            for (Path fd : fds.toList()) {
                listed.add(Integer.parseInt(fd.getFileName().toString()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        listed.removeIf(fd -> target(fd) == null);
        listed.sort(null);
        return listed;
    }
}
