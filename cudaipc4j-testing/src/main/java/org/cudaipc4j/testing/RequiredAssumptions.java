package org.cudaipc4j.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Where a GPU is expected ({@value GpuAvailable#REQUIRE_GPU_ENV}{@code =1}), a GPU test whose assumption does not
 * hold (a Python module missing, no PID namespace, no nvcc) fails with the assumption's reason instead of being
 * skipped: on the machine that is there to run them, a skipped GPU test is a check that did not happen. Elsewhere
 * the skip stands, with its reason. Registered by {@link GpuTest}.
 */
public final class RequiredAssumptions implements TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler {
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        throw failIfRequired(throwable);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        throw failIfRequired(throwable);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        throw failIfRequired(throwable);
    }

    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        throw failIfRequired(throwable);
    }

    @Override
    public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        throw failIfRequired(throwable);
    }

    private static Throwable failIfRequired(Throwable throwable) {
        if (throwable instanceof TestAbortedException aborted && GpuAvailable.required()) {
            return new AssertionError(GpuAvailable.REQUIRE_GPU_ENV + "=1 but this GPU test was skipped: "
                    + aborted.getMessage(), aborted);
        }
        return throwable;
    }
}
