package org.cudaipc4j.testing;

import org.cudaipc4j.cuda.CudaException;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.driver.DriverNotFoundException;
import org.cudaipc4j.driver.MissingSymbolException;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Enables a {@link GpuTest} only when libcuda loads and reports at least one device (checked once per JVM). */
public final class GpuAvailable implements ExecutionCondition {
    private static final class Once {
        static final ConditionEvaluationResult RESULT = probe();
    }

    private static ConditionEvaluationResult probe() {
        try {
            int count = Device.count();
            return count > 0
                    ? ConditionEvaluationResult.enabled(count + " CUDA device(s)")
                    : ConditionEvaluationResult.disabled("no CUDA driver or device (0 devices)");
        } catch (DriverNotFoundException | MissingSymbolException | CudaException e) {
            return ConditionEvaluationResult.disabled("no CUDA driver or device (" + e.getMessage() + ")");
        }
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return Once.RESULT;
    }
}
