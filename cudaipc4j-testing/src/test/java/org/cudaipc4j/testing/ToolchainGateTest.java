package org.cudaipc4j.testing;

import static org.cudaipc4j.testing.SampleRun.assertOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ToolchainTest}'s gate as JUnit applies it, whatever this machine has: sample tests run in child JVMs whose
 * {@code NVCC} names a stand-in that prints a release line (or nothing that runs) and whose {@code NCCL_HOME} holds an
 * {@code include/nccl.h} (or does not), with {@value GpuAvailable#REQUIRE_GPU_ENV} set to 0 and to 1.
 */
class ToolchainGateTest {
    private static final List<Class<?>> SAMPLES = List.of(GateSamples.WithNvcc.class,
            GateSamples.WithNcclHeader.class);

    @TempDir
    Path tmp;

    /** Each sample class and test with its status and reason, from a child JVM. */
    private Map<String, String[]> run(boolean toolchainHere, String requireGpu) throws IOException {
        Path nvcc = tmp.resolve("nvcc");
        Path ncclHome = tmp.resolve("nccl");
        if (toolchainHere && !Files.exists(nvcc)) {
            Files.writeString(nvcc, "#!/bin/sh\necho 'Cuda compilation tools, release 99.9, V99.9.0'\n");
            Files.setPosixFilePermissions(nvcc, PosixFilePermissions.fromString("rwx------"));
            Files.createDirectories(ncclHome.resolve("include"));
            Files.writeString(ncclHome.resolve("include/nccl.h"), "");
        }
        Path missing = tmp.resolve("missing");
        return SampleRun.outcomes(SAMPLES, Map.of(
                "NVCC", (toolchainHere ? nvcc : missing.resolve("nvcc")).toString(),
                "NCCL_HOME", (toolchainHere ? ncclHome : missing).toString(),
                GpuAvailable.REQUIRE_GPU_ENV, requireGpu));
    }

    @Test
    void aToolchainTestRunsWhereItsPartIsWithoutAGpu() throws IOException {
        for (String requireGpu : List.of("0", "1")) {
            Map<String, String[]> outcomes = run(true, requireGpu);
            assertOutcome(outcomes, "WithNvcc.runs", "SUCCESSFUL", "");
            assertOutcome(outcomes, "WithNcclHeader.runs", "SUCCESSFUL", "");
            assertOutcome(outcomes, "WithNcclHeader.needsNothing", "SUCCESSFUL", "");
        }
    }

    @Test
    void aMissingPartSkipsWithTheReasonAndOnlyTheTestsThatNeedIt() throws IOException {
        Map<String, String[]> outcomes = run(false, "0");
        assertOutcome(outcomes, "WithNvcc", "SKIPPED", "no " + tmp.resolve("missing/nvcc") + " runs here");
        assertOutcome(outcomes, "WithNcclHeader.runs", "SKIPPED",
                "no nccl.h at " + tmp.resolve("missing/include/nccl.h"));
        assertOutcome(outcomes, "WithNcclHeader.needsNothing", "SUCCESSFUL", "");
    }

    @Test
    void whereAGpuIsRequiredAMissingPartFailsWithTheReason() throws IOException {
        Map<String, String[]> outcomes = run(false, "1");
        String cannot = GpuAvailable.REQUIRE_GPU_ENV + "=1 but this toolchain test cannot run: ";
        assertOutcome(outcomes, "WithNvcc", "FAILED", cannot + "no " + tmp.resolve("missing/nvcc"));
        assertOutcome(outcomes, "WithNcclHeader.runs", "FAILED", cannot + "no nccl.h at ");
        assertOutcome(outcomes, "WithNcclHeader.needsNothing", "SUCCESSFUL", "");
    }

    @Test
    void theAnnotationTagsAndRegistersTheGate() {
        assertEquals("toolchain", ToolchainTest.class.getAnnotation(Tag.class).value());
        List<Class<?>> registered = List.of(ToolchainTest.class.getAnnotation(ExtendWith.class).value());
        assertEquals(List.of(ToolchainAvailable.class, RequiredAssumptions.class), registered);
    }
}
