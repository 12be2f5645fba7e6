package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * Checks of a shipped PTX file. {@link #assertLoadableByOldDrivers} reads only the file and runs everywhere;
 * {@link #assertFresh} rebuilds it with {@code scripts/build-ptx.sh}, which needs nvcc, and belongs in a
 * {@code @ToolchainTest(Toolchain.NVCC)}, which runs it where nvcc is.
 */
public final class ShippedPtx {
    /** The header line in which nvcc names its release. */
    private static final String RELEASE_LINE = "// Cuda compilation tools";

    private ShippedPtx() {}

    /**
     * The shipped file declares the ISA and target that {@code scripts/build-ptx.sh} sets, which drivers from CUDA
     * 10.0 on load.
     *
     * @param shipped the PTX resource, relative to the project root
     */
    public static void assertLoadableByOldDrivers(String shipped) throws IOException {
        String text = Files.readString(root().resolve(shipped));
        assertEquals("6.3", isaVersion(text), shipped + ": the shipped PTX must keep the ISA old drivers load");
        assertEquals("sm_75", directive(text, ".target "), shipped + ": the oldest target the kernels support");
        assertTrue(text.lines().anyMatch(l -> l.startsWith(".entry ") || l.contains(" .entry ")),
                shipped + " declares no kernel");
    }

    /**
     * The shipped file is what {@code scripts/build-ptx.sh} makes from its source today. When this machine's nvcc is
     * another release than the one named in the shipped file's header, the code after the header must still be the
     * same; when it differs, the message says how to tell a stale file from a compiler that generates other code.
     *
     * @param source  the CUDA C file, relative to the project root
     * @param shipped the PTX resource, relative to the project root
     * @param tmp     a scratch folder
     */
    public static void assertFresh(String source, String shipped, Path tmp) throws IOException {
        Path root = root();
        Path fresh = tmp.resolve("fresh.ptx");
        JavaProcess.Result build = JavaProcess.runCommand(Duration.ofSeconds(300), List.of("bash",
                root.resolve("scripts/build-ptx.sh").toString(), root.resolve(source).toString(), fresh.toString()));
        assertEquals(0, build.exitCode(), build.describe());
        String shippedText = Files.readString(root.resolve(shipped));
        String rebuilt = Files.readString(fresh);
        String shippedBy = releaseOf(shippedText).orElse("an unnamed release");
        String builtBy = releaseOf(rebuilt).orElse("an unnamed release");
        String rebuild = "scripts/build-ptx.sh " + source + " " + shipped;
        if (shippedBy.equals(builtBy)) {
            assertEquals(rebuilt, shippedText, shipped + " is stale: run " + rebuild + " and commit the result");
        } else {
            assertEquals(body(rebuilt), body(shippedText), shipped + " was built by nvcc [" + shippedBy
                    + "] and this nvcc [" + builtBy + "] makes other code from " + source + ". Either the source"
                    + " changed since (run " + rebuild + " and commit the result) or this release generates other"
                    + " code: rebuild with the shipped file's release to tell which, or commit this release's output"
                    + " after checking it with the GPU tests");
        }
        assertEquals("6.3", isaVersion(shippedText), "the shipped PTX must keep the ISA old drivers load");
    }

    /** The {@code .version} of a PTX text. */
    public static String isaVersion(String ptx) {
        return directive(ptx, ".version ");
    }

    private static String directive(String ptx, String prefix) {
        return ptx.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()).strip())
                .findFirst().orElse("none");
    }

    /** The text after nvcc's leading comment block, which names the compiler's build and release. */
    private static String body(String ptx) {
        return ptx.lines().dropWhile(l -> l.startsWith("//")).collect(Collectors.joining("\n"));
    }

    private static Optional<String> releaseOf(String ptx) {
        return ptx.lines().filter(l -> l.startsWith(RELEASE_LINE)).findFirst();
    }

    private static Path root() {
        Optional<Path> root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not run inside the project's checkout");
        return root.get();
    }
}
