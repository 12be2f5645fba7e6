package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The weight-sync example, a few rounds, with torch's caching allocator and with its expandable segments: every
 * tensor's wsum64 (summed by torch on the GPU, by the server on the host) equal, memory back where it started,
 * nothing left; and at a mixture of experts' size, 20,000 small bf16 tensors with default settings.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class WeightSyncGpuTest {
    private static final int ROUNDS = 5;
    private static final int TENSORS = 100;
    static final int MANY = 20_000;

    /** Runs {@code rounds} rounds of {@code tensors} of {@code dict} with {@code allocator} and checks the figures. */
    private static WeightSyncExample.Report run(int rounds, int tensors, WeightSyncExample.Allocator allocator,
            StateDict dict) throws Exception {
        var root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not inside the checkout (the Python package)");
        JavaProcess.Result probe = JavaProcess.runCommand(Duration.ofSeconds(120), List.of("python3", "-c",
                "import torch; assert torch.cuda.is_available()"));
        Assumptions.assumeTrue(probe.exitCode() == 0, () -> "skipped: python3 cannot use torch on CUDA: "
                + probe.stderr().strip());
        Path script = PythonScripts.extract("weight_sync.py");
        try {
            long t0 = System.nanoTime();
            WeightSyncExample.Report r = WeightSyncExample.pythonTrainerToJavaServer(script,
                    root.get().resolve("python"), rounds, tensors, allocator, dict, 42);
            System.out.printf("%s (%.1f s)%n", r.describe(), (System.nanoTime() - t0) / 1e9);
            assertEquals(rounds, r.rounds());
            assertEquals((long) rounds * tensors, r.tensorsChecked(), "every share checked");
            assertEquals(r.trainerAllocatedStart(), r.trainerAllocatedEnd(), "the trainer's memory: " + r.describe());
            assertTrue(Math.abs(r.freeLost()) <= 2L << 20, "java's free memory within 2 MiB: " + r.describe());
            assertEquals(0, r.trainerShmLeft(), "the trainer's /dev/shm entries: " + r.describe());
            assertEquals(0, r.javaShmLeft(), "this JVM's /dev/shm entries: " + r.describe());
            return r;
        } finally {
            Files.deleteIfExists(script);
        }
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aTorchTrainerSharesItsStateDictWithAJavaServerRoundAfterRound() throws Exception {
        WeightSyncExample.Report r = run(ROUNDS, TENSORS, WeightSyncExample.Allocator.CACHING, StateDict.MIXED);
        assertTrue(r.bytesChecked() > (long) ROUNDS * (256L << 20), r.describe());
    }

    /** Every share an 'e' handle (the server refuses any other): chunk fds by pidfd_getfd, mapped through VMM. */
    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aTorchTrainerWithExpandableSegments() throws Exception {
        WeightSyncExample.Report r = run(3, TENSORS, WeightSyncExample.Allocator.EXPANDABLE, StateDict.MIXED);
        assertTrue(r.bytesChecked() > 3L * (256L << 20), r.describe());
    }

    /**
     * 20,000 bf16 tensors of 512 B to 2 MiB (about 4.7 GiB, in the caching allocator's blocks), two rounds, every
     * tensor's bytes checked, with the library's defaults: as many shares open at once as the state dict has.
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aTwentyThousandTensorStateDictOfSmallBf16Tensors() throws Exception {
        WeightSyncExample.Report r = run(2, MANY, WeightSyncExample.Allocator.CACHING, StateDict.SMALL_BF16);
        long total = java.util.Arrays.stream(StateDict.SMALL_BF16.sizes(MANY)).sum();
        assertTrue(Math.abs(r.bytesChecked() - 2 * total) <= 2L * MANY * 8, "every byte of both rounds: "
                + r.describe());
    }
}
