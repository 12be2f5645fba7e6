package org.cudaipc4j.testing;

import java.lang.reflect.AnnotatedElement;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Enables a {@link ToolchainTest} only where the part it names is found (each part looked for once per JVM); where
 * a GPU is required ({@value GpuAvailable#REQUIRE_GPU_ENV}{@code =1}) a missing part fails the test instead.
 */
public final class ToolchainAvailable implements ExecutionCondition {
    private static final Map<Toolchain, Optional<String>> MISSING = new ConcurrentHashMap<>();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Optional<ToolchainTest> test = context.getElement().flatMap(e -> find(e))
                .or(() -> context.getTestClass().flatMap(c -> find(c)));
        if (test.isEmpty()) {
            return ConditionEvaluationResult.enabled("no toolchain part named");
        }
        Toolchain part = test.get().value();
        Optional<String> missing = MISSING.computeIfAbsent(part, p -> Optional.ofNullable(p.missing()));
        if (missing.isEmpty()) {
            return ConditionEvaluationResult.enabled(part + " is here");
        }
        if (GpuAvailable.required()) {
            throw new IllegalStateException(GpuAvailable.REQUIRE_GPU_ENV + "=1 but this toolchain test cannot run: "
                    + missing.get());
        }
        return ConditionEvaluationResult.disabled(missing.get());
    }

    private static Optional<ToolchainTest> find(AnnotatedElement element) {
        return AnnotationSupport.findAnnotation(element, ToolchainTest.class);
    }
}
