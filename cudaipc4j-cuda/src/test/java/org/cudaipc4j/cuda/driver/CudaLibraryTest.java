package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.DriverNotFoundException;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;

class CudaLibraryTest {
    @Test
    void missingLibraryIsATypedErrorListingEveryNameTried() throws IllegalAccessException {
        MethodHandles.lookup().ensureInitialized(Cuda.class); // as on every public path: it installs the exceptions
        List<String> names = List.of("libcudaipc4j-absent.so.1", "/nonexistent/libcuda.so");
        DriverNotFoundException e = assertThrows(DriverNotFoundException.class, () -> CudaLibrary.open(names));
        assertEquals(names, e.namesTried());
        assertEquals("no NVIDIA driver found: could not load libcudaipc4j-absent.so.1, /nonexistent/libcuda.so",
                e.getMessage());
    }

    @Test
    void withoutThePropertyTheDriversSonameIsTriedThenTheDevelopmentName() {
        // Independently of the code under test: does this machine have a library of either name?
        boolean loadable = List.of("libcuda.so.1", "libcuda.so").stream().anyMatch(CudaLibraryTest::loads);
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), DriverProbe.class,
                List.of("-D" + CudaSettings.LIBCUDA.name() + "="));
        assertEquals(0, r.exitCode(), r.describe());
        List<String> lines = r.stdout().lines().toList();
        assertEquals(2, lines.size(), r.describe());
        if (loadable) {
            assertTrue(lines.stream().allMatch(l -> l.startsWith("cuInit returned ")), r.describe());
        } else {
            String line = "DriverNotFoundException: no NVIDIA driver found: could not load libcuda.so.1, libcuda.so";
            assertEquals(List.of(line, line), lines, r.describe());
        }
    }

    @Test
    void thePropertyReplacesTheNamesTriedInItsOrderSkippingBlankEntries() {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), DriverProbe.class,
                List.of("-D" + CudaSettings.LIBCUDA.name() + "= libcudaipc4j-first.so , ,/nonexistent/libcuda.so"));
        assertEquals(0, r.exitCode(), r.describe());
        String line = "DriverNotFoundException: no NVIDIA driver found: could not load libcudaipc4j-first.so,"
                + " /nonexistent/libcuda.so";
        assertEquals(List.of(line, line), r.stdout().lines().toList(), r.describe());
    }

    private static boolean loads(String name) {
        try {
            SymbolLookup.libraryLookup(name, Arena.global());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Test
    void everyCallWithoutADriverThrowsTheTypedErrorEachTime() {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), DriverProbe.class,
                List.of("-D" + CudaSettings.LIBCUDA.name() + "=libcudaipc4j-absent.so.1"));
        assertEquals(0, r.exitCode(), r.describe());
        String line = "DriverNotFoundException: no NVIDIA driver found: could not load libcudaipc4j-absent.so.1";
        assertEquals(List.of(line, line), r.stdout().lines().toList(), r.describe());
    }

    @Test
    void aLibraryWithoutTheFunctionThrowsMissingSymbolNamingIt() {
        // libc loads everywhere and exports no CUDA function.
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), DriverProbe.class,
                List.of("-D" + CudaSettings.LIBCUDA.name() + "=libc.so.6"));
        assertEquals(0, r.exitCode(), r.describe());
        String line = "MissingSymbolException: libc.so.6 has no symbol cuInit"
                + " (the NVIDIA driver is too old for this call)";
        assertEquals(List.of(line, line), r.stdout().lines().toList(), r.describe());
    }

    @Test
    void theBindingAloneNamesTheMissingLibraryWithoutThePublicTypes() {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), DriverProbe.class,
                List.of("-D" + CudaSettings.LIBCUDA.name() + "=libcudaipc4j-absent.so.1"), "raw");
        assertEquals(0, r.exitCode(), r.describe());
        String line = "IllegalStateException: the CUDA driver library did not load (tried libcudaipc4j-absent.so.1)";
        assertEquals(List.of(line, line), r.stdout().lines().toList(), r.describe());
    }
}
