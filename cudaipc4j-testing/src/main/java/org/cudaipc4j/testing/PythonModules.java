package org.cudaipc4j.testing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether {@code python3} here can import the modules a test's Python side needs. A test that needs them is
 * skipped, saying which import failed and why, where they are missing; where a GPU is required that skip is a
 * failure ({@link RequiredAssumptions}).
 */
public final class PythonModules {
    private static final Map<String, String> UNAVAILABLE = new ConcurrentHashMap<>();

    private PythonModules() {}

    /** Skips the calling test unless {@code python3 -c "import MODULE"} works for each of {@code modules}. */
    public static void assumeImportable(String... modules) {
        for (String module : modules) {
            String why = UNAVAILABLE.computeIfAbsent(module, PythonModules::probe);
            Assumptions.assumeTrue(why.isEmpty(), () -> "skipped: " + why);
        }
    }

    /** Empty when the module imports, else why not. */
    private static String probe(String module) {
        try {
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120),
                    List.of("python3", "-c", "import " + module));
            return r.exitCode() == 0 ? "" : "python3 cannot import " + module + ": "
                    + r.stderr().strip().lines().reduce((a, b) -> b).orElse("exit " + r.exitCode());
        } catch (RuntimeException e) {
            return "python3 does not run here: " + e.getMessage();
        }
    }
}
