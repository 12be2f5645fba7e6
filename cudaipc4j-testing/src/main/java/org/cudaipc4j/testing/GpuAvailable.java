package org.cudaipc4j.testing;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enables a {@link GpuTest} only when {@code libcuda.so.1} loads, starts and reports at least one device (probed
 * once per JVM, through FFM directly, so the gate does not depend on the code under test).
 *
 * <p>Where a GPU is expected ({@value #REQUIRE_GPU_ENV}{@code =1}, set by the GPU scripts), a missing GPU fails
 * each GPU test instead of skipping it, so a broken driver cannot read as a green run; {@link RequiredAssumptions}
 * does the same for a GPU test's own assumptions.
 */
public final class GpuAvailable implements ExecutionCondition {
    /** Environment variable that turns a skipped GPU test into a failure. */
    public static final String REQUIRE_GPU_ENV = "CUDAIPC4J_REQUIRE_GPU";

    /** Whether this run expects a GPU: {@value #REQUIRE_GPU_ENV} is {@code 1}. */
    public static boolean required() {
        return "1".equals(System.getenv(REQUIRE_GPU_ENV));
    }

    private static final class Once {
        static final ConditionEvaluationResult RESULT = probe();
    }

    /** Null when a device is there, else why not. */
    static String unavailableReason() {
        MethodHandle cuInit;
        MethodHandle cuDeviceGetCount;
        try {
            SymbolLookup cuda = SymbolLookup.libraryLookup("libcuda.so.1", Arena.global());
            Linker linker = Linker.nativeLinker();
            cuInit = linker.downcallHandle(cuda.findOrThrow("cuInit"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            cuDeviceGetCount = linker.downcallHandle(cuda.findOrThrow("cuDeviceGetCount"),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS));
        } catch (IllegalArgumentException | java.util.NoSuchElementException e) {
            return "no CUDA driver (libcuda.so.1: " + e.getMessage() + ")";
        }
        try (Arena arena = Arena.ofConfined()) {
            int init = (int) cuInit.invokeExact(0);
            if (init != 0) {
                return "no CUDA device (cuInit returned " + init + ")";
            }
            MemorySegment count = arena.allocate(JAVA_INT);
            int r = (int) cuDeviceGetCount.invokeExact(count);
            if (r != 0 || count.get(JAVA_INT, 0) < 1) {
                return "no CUDA device (cuDeviceGetCount returned " + r + ", count " + count.get(JAVA_INT, 0) + ")";
            }
            return null;
        } catch (Throwable t) {
            return "no CUDA driver or device (" + t + ")";
        }
    }

    private static ConditionEvaluationResult probe() {
        String reason = unavailableReason();
        return reason == null ? ConditionEvaluationResult.enabled("a CUDA device is present")
                : ConditionEvaluationResult.disabled(reason);
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        ConditionEvaluationResult result = Once.RESULT;
        if (result.isDisabled() && required()) {
            throw new IllegalStateException(REQUIRE_GPU_ENV + "=1 but this GPU test cannot run: "
                    + result.getReason().orElse("no GPU"));
        }
        return result;
    }
}
