package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.cuda.driver.CudaSettings;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.tool.ExitCodes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code bench --backend cuda} where no driver loads: waived (exit 2) in one line, before any part runs. */
class BenchWaivedTest {
    private static final String ABSENT = "-D" + CudaSettings.LIBCUDA.name() + "=libcudaipc4j-absent.so.1";

    @ParameterizedTest(name = "bench --backend cuda {0}")
    @ValueSource(strings = {"--only e2e", "--only steps", "--only fill", "--only barrier,steps"})
    void withoutADriverItIsWaived(String parts) {
        String[] args = ("bench --backend cuda " + parts).split(" ");
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), Main.class, List.of(ABSENT), args);
        assertEquals(ExitCodes.WAIVED, r.exitCode(), r.describe());
        assertEquals("cudaipc4j: waived: bench --backend cuda: no NVIDIA driver found: could not load"
                + " libcudaipc4j-absent.so.1\n", r.stderr(), r.describe());
        assertEquals("", r.stdout(), r.describe());
    }

    /** Where every part asked for needs a GPU or NCCL, the bench (backend auto) is waived too, saying why. */
    @ParameterizedTest(name = "bench {0}")
    @ValueSource(strings = {"--only fill", "--only fill,nccl"})
    void partsThatAllNeedAGpuAreWaived(String parts) {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), Main.class, List.of(ABSENT),
                ("bench " + parts).split(" "));
        assertEquals(ExitCodes.WAIVED, r.exitCode(), r.describe());
        assertEquals("Fill bandwidth: skipped (no NVIDIA driver found: could not load libcudaipc4j-absent.so.1)",
                r.stdout().lines().findFirst().orElse(""), r.describe());
        String why = "no NVIDIA driver found: could not load libcudaipc4j-absent.so.1";
        assertEquals("cudaipc4j: waived: bench: nothing asked for can be measured here: fill: " + why
                + (parts.contains("nccl") ? "; nccl: " + why : ""), r.stderr().lines().findFirst().orElse(""),
                r.describe());
        assertEquals(1, r.stderr().lines().count(), r.describe());
    }

    /** A run of the tool that waives (its --run-args ask for a GPU) waives the bench, with the run's own reason. */
    @org.junit.jupiter.api.Test
    void aRunThatWaivesWaivesTheBenchWithItsReason() {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(120), Main.class, List.of(ABSENT),
                "bench", "--only", "e2e", "--repeat", "1", "--run-args=--backend cuda");
        assertEquals(ExitCodes.WAIVED, r.exitCode(), r.describe());
        assertEquals("cudaipc4j: waived: bench: run 1 of '--backend cuda' waived: No CUDA devices support IPC: no NVIDIA"
                + " driver found: could not load libcudaipc4j-absent.so.1\n", r.stderr(),
                r.describe());
    }
}
