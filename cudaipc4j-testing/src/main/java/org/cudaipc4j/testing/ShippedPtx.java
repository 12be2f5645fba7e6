package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Checks that a shipped PTX file is what {@code scripts/build-ptx.sh} makes from its CUDA source today: same text
 * (nvcc's release line aside), an ISA version old drivers load, and assembled by ptxas for the oldest target (the
 * script runs ptxas and fails when the kernels need a newer ISA).
 */
public final class ShippedPtx {
    /** The header line in which nvcc names its release; everything else in the file is deterministic. */
    private static final String RELEASE_LINE = "// Cuda compilation tools";

    private ShippedPtx() {}

    /**
     * @param source  the CUDA C file, relative to the project root
     * @param shipped the PTX resource, relative to the project root
     * @param tmp     a scratch folder
     */
    public static void assertFresh(String source, String shipped, Path tmp) throws IOException {
        Optional<Path> root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not run inside the project's checkout");
        JavaProcess.Result version;
        try {
            version = JavaProcess.runCommand(Duration.ofSeconds(60), List.of("nvcc", "--version"));
        } catch (RuntimeException e) {
            version = null;
        }
        Assumptions.assumeTrue(version != null && version.exitCode() == 0, "skipped: no nvcc here to rebuild the PTX");
        Path script = root.get().resolve("scripts/build-ptx.sh");
        Path fresh = tmp.resolve("fresh.ptx");
        JavaProcess.Result build = JavaProcess.runCommand(Duration.ofSeconds(300),
                List.of("bash", script.toString(), root.get().resolve(source).toString(), fresh.toString()));
        assertEquals(0, build.exitCode(), build.describe());
        String shippedText = Files.readString(root.get().resolve(shipped));
        String rebuilt = Files.readString(fresh);
        Optional<String> shippedBy = releaseOf(shippedText);
        Optional<String> builtBy = releaseOf(rebuilt);
        Assumptions.assumeTrue(shippedBy.equals(builtBy), () -> "skipped: this nvcc (" + builtBy.orElse("?")
                + ") is not the one that built the shipped PTX (" + shippedBy.orElse("?") + ")");
        assertEquals(rebuilt, shippedText, shipped + " is stale: run scripts/build-ptx.sh " + source + " " + shipped);
        assertEquals("6.3", isaVersion(shippedText), "the shipped PTX must keep the ISA old drivers load");
    }

    /** The {@code .version} of a PTX text. */
    public static String isaVersion(String ptx) {
        return ptx.lines().filter(l -> l.startsWith(".version ")).map(l -> l.substring(9).strip()).findFirst()
                .orElse("none");
    }

    private static Optional<String> releaseOf(String ptx) {
        return ptx.lines().filter(l -> l.startsWith(RELEASE_LINE)).findFirst();
    }
}
