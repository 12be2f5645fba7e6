package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.api.Test;

/** The whole program on real GPUs, as a user runs it. */
@GpuTest
class SimpleIpcGpuTest {
    private static final Duration LIMIT = Duration.ofMinutes(2);

    @Test
    void defaultRunPicksTheGpuAndPasses() {
        ToolRun run = ToolRun.run(LIMIT);
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        assertTrue(run.out.startsWith("Backend: cuda (auto: "), run.out);
        long n = run.count("^Process \\d+: Starting on device \\d+\\.\\.\\.$");
        assertTrue(n >= 1, run.out);
        assertEquals(n, run.count("^Process \\d+ complete!$"), run.out);
        assertEquals(n, run.count("^Step \\d+ done$"), run.out);
    }

    @Test
    void severalProcessesPerGpuOddSizeAndRounds() {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "cuda", "--devices", "0", "--procs-per-device", "3",
                "--size", "1048583", "--steps", "4");
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        assertEquals(3, run.count("^Process \\d+ complete!$"), run.out);
        assertEquals(12, run.count("^Step \\d+ done$"), run.out);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "--ipc {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"vmm", "pool"})
    void vmmAndPoolMemoryRunTheSameRotation(String ipc) {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "cuda", "--devices", "0", "--procs-per-device", "3",
                "--size", "1048583", "--steps", "3", "--ipc", ipc);
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        assertEquals(3, run.count("^Process \\d+ complete!$"), run.out);
        assertEquals(9, run.count("^Step \\d+ done$"), run.out);
    }

    @Test
    void theSampleKernelPassesToo() {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "cuda", "--devices", "0", "--procs-per-device", "2",
                "--size", "4097", "--kernel", "simple");
        run.assertExit(ExitCodes.OK).assertNothingLeft();
        assertEquals(2, run.count("^Process \\d+ complete!$"), run.out);
    }

    @Test
    void aCorruptedGpuBufferFailsTheRun() {
        ToolRun run = ToolRun.run(LIMIT, "--backend", "cuda", "--devices", "0", "--procs-per-device", "2",
                "--size", "3000", "--inject-corruption", "1");
        run.assertExit(ExitCodes.FAILURE).assertNothingLeft();
        assertTrue(run.out.contains("Process 0: Verification mismatch at offset 0: expected 1, got 2 (3000 of 3000 bytes wrong)"),
                run.out);
    }
}
