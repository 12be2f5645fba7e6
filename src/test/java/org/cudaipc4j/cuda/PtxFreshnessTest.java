package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped PTX is what build-ptx.sh makes from kernels.cu today. */
class PtxFreshnessTest {
    private static final Path SCRIPT = Path.of("src", "main", "cuda", "build-ptx.sh");
    private static final Path SHIPPED = Path.of("src", "main", "resources", "org", "cudaipc4j", "kernels",
            "kernels.ptx");
    /** The header line in which nvcc names its release; everything else in the file is deterministic. */
    private static final String RELEASE_LINE = "// Cuda compilation tools";

    @Test
    void shippedPtxMatchesTheSource(@TempDir Path tmp) throws IOException {
        Assumptions.assumeTrue(Files.isRegularFile(SCRIPT), "skipped: run from the project root");
        JavaProcess.Result version;
        try {
            version = JavaProcess.runCommand(Duration.ofSeconds(60), List.of("nvcc", "--version"));
        } catch (RuntimeException e) {
            version = null;
        }
        Assumptions.assumeTrue(version != null && version.exitCode() == 0, "skipped: no nvcc here to rebuild the PTX");
        Path fresh = tmp.resolve("kernels.ptx");
        JavaProcess.Result build = JavaProcess.runCommand(Duration.ofSeconds(300),
                List.of("bash", SCRIPT.toString(), fresh.toString()));
        assertEquals(0, build.exitCode(), build.describe());
        String shipped = Files.readString(SHIPPED);
        String rebuilt = Files.readString(fresh);
        Optional<String> shippedBy = releaseOf(shipped);
        Optional<String> builtBy = releaseOf(rebuilt);
        Assumptions.assumeTrue(shippedBy.equals(builtBy), () -> "skipped: this nvcc (" + builtBy.orElse("?")
                + ") is not the one that built the shipped PTX (" + shippedBy.orElse("?") + ")");
        assertEquals(shipped, rebuilt, "kernels.ptx is stale: run bash " + SCRIPT);
    }

    private static Optional<String> releaseOf(String ptx) {
        return ptx.lines().filter(l -> l.startsWith(RELEASE_LINE)).findFirst();
    }
}
