package org.cudaipc4j.cuda.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class DriverFilesTest {
    @Test
    void readsTheProducerPidFromTheName() {
        assertEquals(0x1a2b, DriverFiles.producer("cuda.shm.0.1a2b.1"));
        assertEquals(4242, DriverFiles.producer("cuda.shm.1000." + Long.toHexString(4242) + ".17"));
        assertEquals(-1, DriverFiles.producer("cuda.shm.0.zz.1"));
        assertEquals(-1, DriverFiles.producer("cudaipc4j-1-2"));
        assertEquals(-1, DriverFiles.producer("cuda.shm.0.1a2b"));
    }

    /**
     * Finding and removing a process's files, on files named as the driver names them; the pids are above any
     * pid_max Linux allows, so no live process's files are touched.
     */
    @Test
    void findsAndRemovesTheFilesOfOnePidOnly() throws IOException {
        long pid = 0x7ffffff0L;
        Path dir = Path.of("/dev/shm");
        List<Path> ours = List.of(dir.resolve("cuda.shm.0." + Long.toHexString(pid) + ".1"),
                dir.resolve("cuda.shm.1000." + Long.toHexString(pid) + ".2"));
        Path other = dir.resolve("cuda.shm.0." + Long.toHexString(pid + 1) + ".1");
        Path malformed = dir.resolve("cuda.shm." + Long.toHexString(pid) + ".1");
        try {
            for (Path f : ours) {
                Files.createFile(f);
            }
            Files.createFile(other);
            Files.createFile(malformed);
            assertEquals(new TreeSet<>(ours), new TreeSet<>(DriverFiles.of(pid)));
            assertEquals(2, DriverFiles.removeOf(pid));
            assertEquals(List.of(), DriverFiles.of(pid));
            assertTrue(ours.stream().noneMatch(Files::exists), "removed");
            assertTrue(Files.exists(other) && Files.exists(malformed), "another pid's file and a malformed name stay");
            assertEquals(0, DriverFiles.removeOf(pid), "nothing left to remove");
        } finally {
            for (Path f : List.of(ours.get(0), ours.get(1), other, malformed)) {
                Files.deleteIfExists(f);
            }
        }
    }
}
