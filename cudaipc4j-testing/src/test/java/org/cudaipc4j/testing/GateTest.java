package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
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

    /** Each sample class and test with its status and reason, from a child JVM. */
    private static Map<String, String[]> run(String requireGpu) {
        String[] classes = SAMPLES.stream().map(Class::getName).toArray(String[]::new);
        JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120),
                JavaProcess.command(SampleRun.class, List.of(), classes),
                Map.of(GpuAvailable.REQUIRE_GPU_ENV, requireGpu));
        assertEquals(0, r.exitCode(), r.describe());
        Map<String, String[]> outcomes = new LinkedHashMap<>();
        r.stdout().lines().forEach(l -> {
            String[] f = l.split("\t", 3);
            outcomes.put(f[0], Arrays.copyOfRange(f, 1, 3));
        });
        return outcomes;
    }

    /** The outcome of {@code name} has {@code status} and a reason that contains {@code reason} (none if empty). */
    private static void assertOutcome(Map<String, String[]> outcomes, String name, String status, String reason) {
        String[] outcome = outcomes.get(name);
        assertTrue(outcome != null, name + " did not run: " + describe(outcomes));
        assertEquals(status, outcome[0], name + ": " + outcome[1]);
        assertTrue(reason.isEmpty() ? outcome[1].isEmpty() : outcome[1].contains(reason),
                name + ": expected the reason " + reason + ", got " + outcome[1]);
    }

    private static String describe(Map<String, String[]> outcomes) {
        StringBuilder b = new StringBuilder();
        outcomes.forEach((k, v) -> b.append("\n  ").append(k).append(' ').append(String.join(" ", v)));
        return b.toString();
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
