package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leftover check the GPU tests rely on finds a driver file of an ended process. */
class ToolRunTest {
    /** Above any pid_max (2^22), so no process has it. */
    private static final long DEAD_PID = (1L << 22) + 1;

    @Test
    void aDriverFileOfAnEndedProcessIsALeftoverAndOneOfALiveProcessIsNot() throws IOException {
        // A last field the driver never writes, so that no real driver file is touched, and this run's own, so that
        // a test run of another checkout or user at the same time does not collide with it.
        String last = "toolruntest" + Long.toHexString(ProcessHandle.current().pid());
        Path dead = Path.of("/dev/shm", "cuda.shm.0." + Long.toHexString(DEAD_PID) + "." + last);
        Path live = Path.of("/dev/shm", "cuda.shm.0." + Long.toHexString(ProcessHandle.current().pid()) + "." + last);
        assertFalse(ToolRun.producerAlive(dead.getFileName().toString()));
        assertTrue(ToolRun.producerAlive(live.getFileName().toString()));
        assertFalse(ToolRun.producerAlive("cuda.shm.0.xyz.1"));
        // The run begins without them; both appear before the check, as files of the run's processes would.
        ToolRun run = ToolRun.run(Duration.ofMinutes(1), "--backend", "host", "--devices", "7");
        List<Path> made = new ArrayList<>();
        try {
            made.add(Files.createFile(live));
            run.assertNothingLeft();
            made.add(Files.createFile(dead));
            AssertionError e = assertThrows(AssertionError.class, run::assertNothingLeft);
            assertTrue(e.getMessage().contains(dead.getFileName().toString()), e.getMessage());
            assertFalse(e.getMessage().contains(live.getFileName().toString()), e.getMessage());
        } finally {
            for (Path p : made) {
                Files.deleteIfExists(p);
            }
        }
    }
}
