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
 * nothing left.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class WeightSyncGpuTest {
    private static final int ROUNDS = 5;
    private static final int TENSORS = 100;

    /** Runs {@code rounds} rounds of {@code TENSORS} with {@code allocator} and checks the figures. */
    private static void run(int rounds, WeightSyncExample.Allocator allocator) throws Exception {
        var root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not inside the checkout (the Python package)");
        JavaProcess.Result probe = JavaProcess.runCommand(Duration.ofSeconds(120), List.of("python3", "-c",
                "import torch; assert torch.cuda.is_available()"));
        Assumptions.assumeTrue(probe.exitCode() == 0, () -> "skipped: python3 cannot use torch on CUDA: "
                + probe.stderr().strip());
        Path script = PythonScripts.extract("weight_sync.py");
        try {
            WeightSyncExample.Report r = WeightSyncExample.pythonTrainerToJavaServer(script,
                    root.get().resolve("python"), rounds, TENSORS, allocator, 42);
            System.out.println(r.describe());
            assertEquals(rounds, r.rounds());
            assertEquals((long) rounds * TENSORS, r.tensorsChecked(), "every share checked");
            assertTrue(r.bytesChecked() > (long) rounds * (256L << 20), r.describe());
            assertEquals(r.trainerAllocatedStart(), r.trainerAllocatedEnd(), "the trainer's memory: " + r.describe());
            assertTrue(Math.abs(r.freeLost()) <= 2L << 20, "java's free memory within 2 MiB: " + r.describe());
            assertEquals(0, r.trainerShmLeft(), "the trainer's /dev/shm entries: " + r.describe());
            assertEquals(0, r.javaShmLeft(), "this JVM's /dev/shm entries: " + r.describe());
        } finally {
            Files.deleteIfExists(script);
        }
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aTorchTrainerSharesItsStateDictWithAJavaServerRoundAfterRound() throws Exception {
        run(ROUNDS, WeightSyncExample.Allocator.CACHING);
    }

    /** Every share an 'e' handle (the server refuses any other): chunk fds by pidfd_getfd, mapped through VMM. */
    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aTorchTrainerWithExpandableSegments() throws Exception {
        run(3, WeightSyncExample.Allocator.EXPANDABLE);
    }
}
