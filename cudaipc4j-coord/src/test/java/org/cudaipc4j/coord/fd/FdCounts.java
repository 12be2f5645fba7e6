package org.cudaipc4j.coord.fd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The number of descriptors open in this process ({@code /proc/self/fd}), for leak checks. */
final class FdCounts {
    private FdCounts() {}

    static long open() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count() - 1; // the listing's own descriptor
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
