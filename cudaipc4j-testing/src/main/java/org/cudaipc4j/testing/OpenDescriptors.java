package org.cudaipc4j.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
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
        targets().forEach((fd, t) -> {
            if (t.equals(target)) {
                found.add(fd);
            }
        });
        return found;
    }

    /** The sockets open now ({@code socket:[inode]}), for a check that code which opens sockets closes them all. */
    public static List<String> sockets() {
        List<String> found = new ArrayList<>();
        for (String t : targets().values()) {
            if (t.startsWith("socket:")) {
                found.add(t);
            }
        }
        found.sort(null);
        return found;
    }

    /** How many descriptors are open now, whatever they refer to. */
    public static int count() {
        return targets().size();
    }

    /**
     * The descriptors open now and what each refers to, by number, each link read once; the listing's own, closed
     * by then, is left out.
     */
    private static SortedMap<Integer, String> targets() {
        List<Path> listed;
        try (Stream<Path> fds = Files.list(SELF)) {
            listed = fds.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        SortedMap<Integer, String> open = new TreeMap<>();
        for (Path fd : listed) {
            int number = Integer.parseInt(fd.getFileName().toString());
            String t = target(number);
            if (t != null) {
                open.put(number, t);
            }
        }
        return open;
    }
}
