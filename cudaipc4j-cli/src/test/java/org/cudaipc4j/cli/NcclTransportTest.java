package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.cudaipc4j.cuda.driver.CudaLibrary;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;

/** {@code --transport nccl} without a GPU or NCCL: waived in one line, bad values and combinations refused. */
class NcclTransportTest {
    private static JavaProcess.Result run(Map<String, String> env, String... args) {
        return JavaProcess.runCommand(Duration.ofMinutes(1), NcclRanks.toolCommand(args), env);
    }

    /** Without NCCL the run is waived in one line; without a CUDA driver too, and that line names the driver. */
    @Test
    void withoutNcclTheRunIsWaivedInOneLine() {
        JavaProcess.Result r = run(Map.of("CUDAIPC4J_NCCL_LIBRARY", "/nonexistent/libnccl.so.2"),
                "--transport", "nccl");
        assertEquals(2, r.exitCode(), r.describe());
        boolean driver = CudaLibrary.isAvailable();
        String expected = driver ? "cudaipc4j: waived: NCCL is not usable: cannot load NCCL from"
                + " /nonexistent/libnccl.so.2 (" : "cudaipc4j: waived: no CUDA driver (";
        // One line on standard error, as every waived result; standard output carries results only.
        assertTrue(r.stderr().startsWith(expected), r.describe());
        assertEquals(1, r.stderr().lines().count(), r.describe());
        assertEquals(driver, r.stderr().contains("CUDAIPC4J_NCCL_LIBRARY"), r.describe());
        assertEquals("", r.stdout(), r.describe());
    }

    @Test
    void aTransportThatDoesNotExistIsAUsageError() {
        JavaProcess.Result r = run(Map.of(), "--transport", "carrier-pigeon");
        assertEquals(64, r.exitCode(), r.describe());
        assertTrue(r.stderr().contains("--transport must be ipc or nccl, got 'carrier-pigeon'"), r.describe());
        assertEquals(1, r.stderr().strip().lines().count(), r.describe());
    }

    @Test
    void ipcOnlyOptionsAreRefusedWithNccl() {
        JavaProcess.Result r = run(Map.of(), "--transport", "nccl", "--ipc", "vmm", "--sync", "events");
        assertEquals(64, r.exitCode(), r.describe());
        assertTrue(r.stderr().contains("--ipc, --sync are for --transport ipc, not nccl"), r.describe());
    }

    @Test
    void aBadLauncherVariableIsAUsageErrorNamingIt() {
        JavaProcess.Result r = run(Map.of("RANK", "one", "WORLD_SIZE", "2", "LOCAL_RANK", "0"),
                "--transport", "nccl");
        assertEquals(64, r.exitCode(), r.describe());
        assertTrue(r.stderr().contains("RANK") && r.stderr().contains("one"), r.describe());
        assertEquals(1, r.stderr().strip().lines().count(), r.describe());
    }

    @Test
    void benchSkipsItsNcclPartWithTheReason() {
        JavaProcess.Result r = run(Map.of("CUDAIPC4J_NCCL_LIBRARY", "/nonexistent/libnccl.so.2"),
                "bench", "--only", "nccl");
        assertEquals(2, r.exitCode(), r.describe()); // waived: nothing asked for can run here
        assertTrue(r.stdout().lines().anyMatch(l -> l.startsWith("NCCL: skipped (")), r.describe());
        assertTrue(r.stderr().startsWith("cudaipc4j: waived: bench: nothing asked for can be measured here: nccl: "),
                r.describe());
    }

    @Test
    void theSharedOptionsAreCheckedAsForIpc() {
        JavaProcess.Result r = run(Map.of(), "--transport", "nccl", "--steps", "0");
        assertEquals(64, r.exitCode(), r.describe());
        assertTrue(r.stderr().contains("--steps must be at least 1"), r.describe());
    }
}
