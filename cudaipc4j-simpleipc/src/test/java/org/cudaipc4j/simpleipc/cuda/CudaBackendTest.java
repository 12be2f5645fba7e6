package org.cudaipc4j.simpleipc.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.cuda.driver.CudaSettings;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;

class CudaBackendTest {
    @Test
    void withoutADriverSelectionSaysNoDeviceSupportsIpcAndWhy() {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), BackendChild.class,
                List.of("-D" + CudaSettings.LIBCUDA.name() + "=libcudaipc4j-absent.so.1"), "select");
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals("NoIpcDeviceException: No CUDA devices support IPC: no NVIDIA driver found: could not load "
                + "libcudaipc4j-absent.so.1\n", r.stdout(), r.describe());
    }

    @Test
    void theKernelIsTheOneTheBackendIsMadeWith() {
        try (CudaBackend plain = new CudaBackend(); CudaBackend simple = new CudaBackend(BuiltinKernels.Fill.SIMPLE)) {
            assertEquals(BuiltinKernels.Fill.VEC16, plain.fillKernel());
            assertEquals(BuiltinKernels.Fill.SIMPLE, simple.fillKernel());
        }
    }
}
