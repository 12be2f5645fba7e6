package org.cudaipc4j.simpleipc.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/** The shared-memory files that processes of a test created (names cudaipc4j-&lt;pid&gt;-...). */
final class ShmFiles {
    private ShmFiles() {}

    static Path dir() {
        return Path.of(System.getProperty("cudaipc4j.shm.dir", "/dev/shm"));
    }

    static List<String> of(long... pids) {
        try (Stream<Path> files = Files.list(dir())) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> Arrays.stream(pids).anyMatch(pid -> n.startsWith("cudaipc4j-" + pid + "-")))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> ofThisProcess() {
        return of(ProcessHandle.current().pid());
    }

    static void assertNoneLeft(long... pids) {
        assertEquals(List.of(), of(pids), "segments left in " + dir());
    }
}
