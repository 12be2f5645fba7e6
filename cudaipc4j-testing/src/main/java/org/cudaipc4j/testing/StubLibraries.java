package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Shared libraries built with {@code cc} from C sources of the checkout, standing in for a native library with no
 * GPU behind it: the stub CUDA driver ({@value #CUDA_DRIVER}), a module's own stubs. A test that needs one is skipped
 * outside a checkout or without a C compiler.
 */
public final class StubLibraries {
    /** The stub CUDA driver's source, from the project's root; load it as {@code libcuda.so.1}. */
    public static final String CUDA_DRIVER = "scripts/stub-driver/libcuda-stub.c";

    private StubLibraries() {}

    /**
     * Builds {@code source} into {@code library} with {@code cc -O2 -shared -fPIC} and {@code options}.
     *
     * @param source the C file, relative to the project's root
     * @param library the shared library to write
     * @param options more options for {@code cc}, such as {@code -DNAME=VALUE}
     * @return {@code library}
     */
    public static Path build(String source, Path library, String... options)
            throws IOException, InterruptedException {
        Optional<Path> root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not run inside the project's checkout");
        List<String> command = new ArrayList<>(List.of("cc", "-O2", "-shared", "-fPIC"));
        command.addAll(List.of(options));
        command.addAll(List.of("-o", library.toString(), root.get().resolve(source).toString()));
        Process cc;
        try {
            cc = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("skipped: no C compiler (cc) to build " + source + ": " + e.getMessage());
            throw e;
        }
        String out = new String(cc.getInputStream().readAllBytes());
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS), "cc did not finish: " + command);
        assertEquals(0, cc.exitValue(), "cc failed: " + command + "\n" + out);
        return library;
    }
}
