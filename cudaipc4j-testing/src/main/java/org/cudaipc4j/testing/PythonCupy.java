package org.cudaipc4j.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/** The CuPy interop script ({@code cudaipc4j-cuda/src/test/python/cupy_ipc.py}) and whether this machine can run it. */
public final class PythonCupy {
    /** The script, relative to the project root. */
    public static final String SCRIPT = "cudaipc4j-cuda/src/test/python/cupy_ipc.py";

    private static final class Once {
        static final String UNAVAILABLE = probe();
    }

    private PythonCupy() {}

    /** Null when python3 with CuPy and a device works here, else why not. */
    private static String probe() {
        if (ProjectRoot.find().isEmpty()) {
            return SCRIPT + " not found: not run inside the project's checkout";
        }
        try {
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120), List.of("python3", "-c",
                    "import cupy; print(cupy.__version__, cupy.cuda.runtime.getDeviceCount())"));
            return r.exitCode() == 0 ? null : "python3 cannot use CuPy: " + r.stderr().strip().lines()
                    .reduce((a, b) -> b).orElse("exit " + r.exitCode());
        } catch (RuntimeException e) {
            return "python3 not runnable: " + e.getMessage();
        }
    }

    /** Skips the calling test, visibly, unless python3 with CuPy works here. */
    public static void assumeAvailable() {
        Assumptions.assumeTrue(Once.UNAVAILABLE == null, () -> "skipped: " + Once.UNAVAILABLE);
    }

    /** {@code python3 cupy_ipc.py args...}. */
    public static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of("python3",
                ProjectRoot.find().orElseThrow().resolve(SCRIPT).toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
