package org.cudaipc4j.testing;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Arrays;
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
 * Child JVM for {@link GateTest}: runs the given test classes with JUnit and prints one line per class and test,
 * {@code NAME STATUS REASON} separated by tabs (STATUS is SUCCESSFUL, ABORTED, FAILED or SKIPPED).
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
