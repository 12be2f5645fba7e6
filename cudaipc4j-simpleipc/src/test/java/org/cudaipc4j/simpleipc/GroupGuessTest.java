package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupGuessTest {
    private static SimpleIpcOptions options(BackendKind backend, List<Integer> devices, int procsPerDevice,
            int simulated) {
        return new SimpleIpcOptions(1024, procsPerDevice, devices, 1, backend, simulated, Duration.ofSeconds(60),
                false, -1, BuiltinKernels.Fill.VEC16, SimpleIpcOptions.Verify.DEVICE, IpcMode.LEGACY,
                SimpleIpcOptions.Sync.COUNTERS, Duration.ofSeconds(60));
    }

    @Test
    void autoFollowsTheGpusTheDriverDrives() {
        assertEquals(new GroupGuess(BackendKind.CUDA, 4), GroupGuess.of(options(BackendKind.AUTO, List.of(), 1, 2), 4, false));
        assertEquals(new GroupGuess(BackendKind.CUDA, 8), GroupGuess.of(options(BackendKind.AUTO, List.of(), 2, 2), 4, false));
        // No GPU: auto simulates, with --sim-devices devices.
        assertEquals(new GroupGuess(BackendKind.HOST, 6), GroupGuess.of(options(BackendKind.AUTO, List.of(), 2, 3), 0, false));
    }

    @Test
    void anExplicitDeviceListGivesTheCount() {
        assertEquals(new GroupGuess(BackendKind.CUDA, 2), GroupGuess.of(options(BackendKind.CUDA, List.of(1, 0), 1, 2), 8, true));
        assertEquals(new GroupGuess(BackendKind.HOST, 3), GroupGuess.of(options(BackendKind.HOST, List.of(0, 1, 2), 1, 4), 0, false));
    }

    @Test
    void noGuessWhereOnlyTheDriverCanTell() {
        // CUDA_VISIBLE_DEVICES may hide or reorder devices.
        assertNull(GroupGuess.of(options(BackendKind.AUTO, List.of(), 1, 2), 4, true));
        // cuda asked for and no GPU: the run is waived, starting children would be wasted.
        assertNull(GroupGuess.of(options(BackendKind.CUDA, List.of(), 1, 2), 0, false));
    }

    @Test
    void theSampleLimitOfDevicesApplies() {
        assertEquals(new GroupGuess(BackendKind.CUDA, 32), GroupGuess.of(options(BackendKind.AUTO, List.of(), 1, 2), 40, false));
    }

    @Test
    void gpusAreTheFoldersOfTheDriverListing(@TempDir Path dir) throws Exception {
        assertEquals(0, GroupGuess.countGpus(dir.resolve("missing")));
        Files.createDirectory(dir.resolve("0000:00:06.0"));
        Files.createDirectory(dir.resolve("0000:00:07.0"));
        assertEquals(2, GroupGuess.countGpus(dir));
    }

    @Test
    void aGroupFitsOnlyTheSameBackendAndSize() {
        GroupGuess g = new GroupGuess(BackendKind.CUDA, 2);
        assertTrue(g.matches(BackendKind.CUDA, 2));
        assertFalse(g.matches(BackendKind.CUDA, 1));
        assertFalse(g.matches(BackendKind.HOST, 2));
    }
}
