package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Without a GPU: fake driver files named for a dead pid, for this JVM and for a child, found and removed or kept. */
class DriverFileLeaksTest {
    /** Above any pid_max (2^22), so no process has it. */
    private static final long DEAD_PID = (1L << 22) + 3;
    private static final long SELF = ProcessHandle.current().pid();

    private final List<Path> made = new ArrayList<>();

    /**
     * A fake driver file of {@code pid}: its last field one the driver never writes, so that no real driver file is
     * touched, and this run's own, so that a test run of another checkout at the same time does not collide with it.
     */
    private Path fake(long pid) throws IOException {
        Path p = Path.of("/dev/shm", "cuda.shm.0." + Long.toHexString(pid) + ".leakstest" + Long.toHexString(SELF));
        made.add(p);
        return Files.createFile(p);
    }

    @AfterEach
    void removeFakes() throws IOException {
        for (Path p : made) {
            Files.deleteIfExists(p);
        }
    }

    @Test
    void aDriverFileNamesItsProcessInHex() {
        assertEquals(0x1a2b, DriverFileLeaks.producer("cuda.shm.0.1a2b.1"));
        assertEquals(-1, DriverFileLeaks.producer("cuda.shm.0.zz.1"));
        assertEquals(-1, DriverFileLeaks.producer("cuda.shm.0.1a2b"));
        assertEquals(-1, DriverFileLeaks.producer("cudaipc4j-1-2"));
    }

    @Test
    void theFileOfAnEndedProcessIsRemovedAndOneOfALiveProcessIsKept() throws IOException {
        Path dead = fake(DEAD_PID);
        Path live = fake(SELF);
        assertEquals(List.of(dead.getFileName().toString()), DriverFileLeaks.of(DEAD_PID));
        assertEquals(List.of(), DriverFileLeaks.removeOf(SELF), "a live process's file is not touched");
        assertTrue(Files.exists(live));
        assertEquals(List.of(dead.getFileName().toString()), DriverFileLeaks.removeOf(DEAD_PID));
        assertFalse(Files.exists(dead));
        assertEquals(List.of(), DriverFileLeaks.removeOf(DEAD_PID), "nothing left to remove");
    }

    @Test
    void whatIsLeftSinceASnapshotIsTheNewFilesOfEndedProcesses() throws IOException {
        Set<String> before = DriverFileLeaks.names();
        Path dead = fake(DEAD_PID);
        fake(SELF);
        assertEquals(List.of(dead.getFileName().toString()), DriverFileLeaks.leftSince(before));
        assertEquals(List.of(), DriverFileLeaks.leftSince(DriverFileLeaks.names()), "there before: not a leftover");
    }

    @Test
    void aChildsFileIsKeptWhileItRunsAndRemovedOnceItHasEnded() throws Exception {
        Process child = new ProcessBuilder("sleep", "600").start();
        try {
            Path file = fake(child.pid());
            CompletableFuture<List<String>> removal = DriverFileLeaks.removeWhenEnded(child.pid());
            assertEquals(List.of(), DriverFileLeaks.removeOf(child.pid()), "a running child's file is kept");
            assertFalse(removal.isDone());
            assertTrue(Files.exists(file));
            child.destroyForcibly();
            assertEquals(List.of(file.getFileName().toString()), removal.get(30, TimeUnit.SECONDS));
            assertFalse(Files.exists(file));
        } finally {
            child.destroyForcibly().waitFor();
        }
    }

    @Test
    void aProcessThatHasAlreadyEndedHasItsFileRemovedAtOnce() throws Exception {
        Path file = fake(DEAD_PID);
        assertEquals(List.of(file.getFileName().toString()),
                DriverFileLeaks.removeWhenEnded(DEAD_PID).get(30, TimeUnit.SECONDS));
        assertFalse(Files.exists(file));
    }
}
