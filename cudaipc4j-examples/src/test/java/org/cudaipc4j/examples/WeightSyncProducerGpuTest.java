package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.examples.ExportedStateDict.ExportPath;
import org.cudaipc4j.examples.WeightSyncProducerExample.Options;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.ProjectRoot;
import org.cudaipc4j.testing.PythonModules;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The weight-sync example with a Java trainer and a Python server, a few rounds by each export path: every checksum
 * equal, every lease held and then released, memory back where it started, nothing left in {@code /dev/shm}; and at
 * a mixture of experts' size, 20,000 small bf16 tensors from a pool.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class WeightSyncProducerGpuTest {
    private static WeightSyncProducerExample.Report run(Options o) throws Exception {
        var root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not inside the checkout (the Python package)");
        PythonModules.assumeImportable("torch", "cuda.bindings");
        Path script = PythonScripts.extract("weight_sync.py");
        try {
            long t0 = System.nanoTime();
            WeightSyncProducerExample.Report r = WeightSyncProducerExample.javaTrainerToPythonServer(script,
                    root.get().resolve("python"), o);
            System.out.printf("%s (%.1f s)%n", r.describe(), (System.nanoTime() - t0) / 1e9);
            assertEquals(o.rounds(), r.rounds(), r.describe());
            assertEquals(o.tensors(), r.tensors());
            assertEquals(o.tensors(), r.leasesHeld(), "every export held by the server: " + r.describe());
            assertTrue(Math.abs(r.freeLost()) <= 2L << 20, "java's free memory within 2 MiB: " + r.describe());
            assertEquals(r.serverAllocatedStart(), r.serverAllocatedEnd(), "the server's memory: " + r.describe());
            assertEquals(0, r.serverShmLeft(), "the server's /dev/shm entries: " + r.describe());
            assertEquals(0, r.javaShmLeft(), "this JVM's /dev/shm entries: " + r.describe());
            return r;
        } finally {
            Files.deleteIfExists(script);
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aJavaTrainerSharesItsStateDictFromAPoolWithAPythonServer() throws Exception {
        WeightSyncProducerExample.Report r = run(new Options(5, 40, ExportPath.POOL, 42, StateDict.MIXED));
        assertTrue(r.bytesPerRound() > 256L << 20, r.describe());
    }

    /** 20,000 bf16 tensors of 512 B to 2 MiB (about 4.7 GiB), two rounds, every tensor checked on the GPU. */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aTwentyThousandTensorStateDictOfSmallBf16TensorsFromAPool() throws Exception {
        WeightSyncProducerExample.Report r = run(new Options(2, WeightSyncGpuTest.MANY, ExportPath.POOL, 45,
                StateDict.SMALL_BF16));
        assertEquals(java.util.Arrays.stream(StateDict.SMALL_BF16.sizes(WeightSyncGpuTest.MANY)).sum(),
                r.bytesPerRound(), r.describe());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void throughVmmAllocations() throws Exception {
        run(new Options(3, 20, ExportPath.VMM, 43, StateDict.MIXED));
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void throughLegacyIpcHandles() throws Exception {
        run(new Options(3, 20, ExportPath.LEGACY, 44, StateDict.MIXED));
    }
}
