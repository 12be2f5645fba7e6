package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No package of the libraries' main code uses a package that uses it back, directly or through a longer loop: the
 * raw driver binding ({@code org.cudaipc4j.cuda.driver}) knows nothing of the typed layer above it, descriptor
 * passing ({@code org.cudaipc4j.coord.fd}) is built on {@code org.cudaipc4j.coord} and not the other way, and so on
 * for every package of {@code cudaipc4j-base}, {@code cudaipc4j-cuda}, {@code cudaipc4j-coord},
 * {@code cudaipc4j-launch}, {@code cudaipc4j-interop} and {@code cudaipc4j-nccl}, read together (the modules depend
 * on one another, so a loop could run through two).
 *
 * <p>It reads the sources ({@link PackageCycles}: imports and names given in full), so it needs no GPU and runs in
 * every build: this module is built, and its tests run, before each library that uses it. A failure names each loop
 * and, for each step, a file and the name that makes it. The applications ({@code cudaipc4j-simpleipc},
 * {@code cudaipc4j-bench}, {@code cudaipc4j-cli}) are held to the same rule, read with the libraries they use.
 */
class LibraryPackageCyclesTest {
    static final List<String> LIBRARIES =
            List.of("cudaipc4j-base", "cudaipc4j-cuda", "cudaipc4j-coord", "cudaipc4j-launch", "cudaipc4j-interop",
                    "cudaipc4j-nccl");
    static final List<String> APPLICATIONS = List.of("cudaipc4j-simpleipc", "cudaipc4j-bench", "cudaipc4j-cli");

    @Test
    void noLibraryPackageUsesOneThatUsesItBack() {
        Path root = ProjectRoot.find().orElseThrow(
                () -> new IllegalStateException("the project's root is not above " + Path.of("").toAbsolutePath()));
        List<Path> sources = LIBRARIES.stream().map(m -> root.resolve(m).resolve("src/main/java")).toList();
        assertEquals(List.of(), PackageCycles.find(sources), "package cycles in the libraries' main code");
    }

    @Test
    void noApplicationPackageUsesOneThatUsesItBack() {
        Path root = ProjectRoot.find().orElseThrow(
                () -> new IllegalStateException("the project's root is not above " + Path.of("").toAbsolutePath()));
        List<Path> sources = java.util.stream.Stream.concat(LIBRARIES.stream(), APPLICATIONS.stream())
                .map(m -> root.resolve(m).resolve("src/main/java")).toList();
        assertEquals(List.of(), PackageCycles.find(sources), "package cycles in the applications' main code");
    }
}
