package org.cudaipc4j.testing;

import static org.cudaipc4j.testing.SampleRun.assertOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link GpuTest}'s gate and {@value GpuAvailable#REQUIRE_GPU_ENV}, as JUnit applies them: sample tests run in child
 * JVMs with the variable set to 1 and to 0. What a GPU test does depends on whether this machine has a device, which
 * is asked here of {@link GpuAvailable#unavailableReason()}'s probe.
 */
class GateTest {
    private static final List<Class<?>> SAMPLES = List.of(GateSamples.OnGpu.class, GateSamples.AssumingOnGpu.class,
            GateSamples.Assuming.class, GateSamples.AssumingBeforeEach.class, GateSamples.AssumingBeforeAll.class);

    private static final String SKIPPED_WHERE_REQUIRED = GpuAvailable.REQUIRE_GPU_ENV
            + "=1 but this GPU test was skipped: Assumption failed: ";

    private static String noGpu;
    private static Map<String, String[]> required;
    private static Map<String, String[]> notRequired;

    @BeforeAll
    static void runTheSamples() {
        noGpu = GpuAvailable.unavailableReason();
        required = run("1");
        notRequired = run("0");
    }

    private static Map<String, String[]> run(String requireGpu) {
        return SampleRun.outcomes(SAMPLES, Map.of(GpuAvailable.REQUIRE_GPU_ENV, requireGpu));
    }

    @Test
    void aGpuTestRunsWhereThereIsADeviceAndElseIsSkippedWithTheReason() {
        if (noGpu == null) {
            assertOutcome(notRequired, "OnGpu.runs", "SUCCESSFUL", "");
        } else {
            assertOutcome(notRequired, "OnGpu", "SKIPPED", noGpu);
            assertTrue(noGpu.startsWith("no CUDA"), noGpu);
        }
    }

    @Test
    void whereAGpuIsRequiredAMissingDeviceFailsTheTestWithTheReason() {
        if (noGpu == null) {
            assertOutcome(required, "OnGpu.runs", "SUCCESSFUL", "");
        } else {
            assertOutcome(required, "OnGpu", "FAILED",
                    GpuAvailable.REQUIRE_GPU_ENV + "=1 but this GPU test cannot run: " + noGpu);
        }
    }

    @Test
    void anAssumptionSkipsWithItsReasonWhereNoGpuIsRequired() {
        assertOutcome(notRequired, "Assuming.assumes", "ABORTED", GateSamples.REASON);
        assertOutcome(notRequired, "AssumingBeforeEach.runs", "ABORTED", GateSamples.REASON);
        assertOutcome(notRequired, "AssumingBeforeAll", "ABORTED", GateSamples.REASON);
    }

    @Test
    void whereAGpuIsRequiredAnAssumptionFailsWithItsReason() {
        String failed = SKIPPED_WHERE_REQUIRED + GateSamples.REASON;
        assertOutcome(required, "Assuming.assumes", "FAILED", failed);
        assertOutcome(required, "AssumingBeforeEach.runs", "FAILED", failed);
        assertOutcome(required, "AssumingBeforeAll", "FAILED", failed);
    }

    @Test
    void otherOutcomesAreLeftAsTheyAre() {
        for (Map<String, String[]> outcomes : List.of(required, notRequired)) {
            assertOutcome(outcomes, "Assuming.fails", "FAILED", "a real failure");
            assertOutcome(outcomes, "Assuming.passes", "SUCCESSFUL", "");
        }
    }

    @Test
    void aGpuTestsOwnAssumptionsFollowTheRequirement() {
        // Where there is a device, through the annotation; without one the gate decides before the test body runs.
        List<Class<?>> registered = List.of(GpuTest.class.getAnnotation(ExtendWith.class).value());
        assertTrue(registered.contains(RequiredAssumptions.class) && registered.contains(GpuAvailable.class),
                "GpuTest registers " + registered);
        assertEquals("gpu", GpuTest.class.getAnnotation(Tag.class).value());
        if (noGpu == null) {
            assertOutcome(notRequired, "AssumingOnGpu.assumes", "ABORTED", GateSamples.REASON);
            assertOutcome(required, "AssumingOnGpu.assumes", "FAILED", SKIPPED_WHERE_REQUIRED + GateSamples.REASON);
        } else {
            assertOutcome(notRequired, "AssumingOnGpu", "SKIPPED", noGpu);
        }
    }
}
