package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Child JVM for {@link GateTest} and {@link ToolchainGateTest}: runs the given test classes with JUnit and prints one
 * line per class and test, {@code NAME STATUS REASON} separated by tabs (STATUS is SUCCESSFUL, ABORTED, FAILED or
 * SKIPPED); and the tests' side, which starts it ({@link #outcomes}) and judges its lines ({@link #assertOutcome}).
 */
public final class SampleRun {
    private SampleRun() {}

    public static void main(String[] args) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(Arrays.stream(args).map(name -> selectClass(name)).toList()).build();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                name(id).ifPresent(n -> print(n, "SKIPPED", reason));
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                name(id).ifPresent(n -> print(n, result.getStatus().name(),
                        result.getThrowable().map(Throwable::getMessage).orElse("")));
            }
        });
        System.out.flush();
    }

    /**
     * Runs {@code samples} in a child JVM with {@code environment} added to this one's, and returns each sample class
     * and test with its status and reason, in the order they were reported.
     */
    static Map<String, String[]> outcomes(List<Class<?>> samples, Map<String, String> environment) {
        String[] classes = samples.stream().map(Class::getName).toArray(String[]::new);
        JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120),
                JavaProcess.command(SampleRun.class, List.of(), classes), environment);
        assertEquals(0, r.exitCode(), r.describe());
        Map<String, String[]> outcomes = new LinkedHashMap<>();
        r.stdout().lines().forEach(l -> {
            String[] f = l.split("\t", 3);
            outcomes.put(f[0], Arrays.copyOfRange(f, 1, 3));
        });
        return outcomes;
    }

    /** The outcome of {@code name} has {@code status} and a reason that contains {@code reason} (none if empty). */
    static void assertOutcome(Map<String, String[]> outcomes, String name, String status, String reason) {
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

    private static void print(String name, String status, String reason) {
        System.out.println(name + "\t" + status + "\t" + String.valueOf(reason).replace('\n', ' '));
    }

    /** {@code Sample} for a class, {@code Sample.method} for a test method; empty for the engine. */
    private static Optional<String> name(TestIdentifier id) {
        TestSource source = id.getSource().orElse(null);
        if (source instanceof MethodSource m) {
            return Optional.of(simple(m.getClassName()) + "." + m.getMethodName());
        }
        if (source instanceof ClassSource c) {
            return Optional.of(simple(c.getClassName()));
        }
        return Optional.empty();
    }

    private static String simple(String className) {
        return className.substring(className.lastIndexOf('$') + 1);
    }
}
