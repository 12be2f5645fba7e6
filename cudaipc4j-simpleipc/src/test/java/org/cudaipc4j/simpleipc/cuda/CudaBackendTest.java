package org.cudaipc4j.simpleipc.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.cuda.driver.CudaLibrary;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;

class CudaBackendTest {
    @Test
    void withoutADriverSelectionSaysNoDeviceSupportsIpcAndWhy() {
        JavaProcess.Result r = JavaProcess.run(Duration.ofSeconds(60), BackendChild.class,
                List.of("-D" + CudaLibrary.NAMES_PROPERTY + "=libcudaipc4j-absent.so.1"), "select");
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals("NoIpcDeviceException: No CUDA devices support IPC: no NVIDIA driver found: could not load "
                + "libcudaipc4j-absent.so.1\n", r.stdout(), r.describe());
    }

    @Test
    void theKernelIsChosenByThePropertyAndABadChoiceIsRefused() {
        String old = System.getProperty(CudaBackend.KERNEL_PROPERTY);
        try {
            System.clearProperty(CudaBackend.KERNEL_PROPERTY);
            assertEquals(org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill.VEC16, CudaBackend.fillKernel());
            System.setProperty(CudaBackend.KERNEL_PROPERTY, "simple");
            assertEquals(org.cudaipc4j.simpleipc.kernels.BuiltinKernels.Fill.SIMPLE, CudaBackend.fillKernel());
            System.setProperty(CudaBackend.KERNEL_PROPERTY, "fast");
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, CudaBackend::fillKernel);
            assertEquals("cudaipc4j.kernel must be vec16 or simple, got 'fast'", e.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty(CudaBackend.KERNEL_PROPERTY);
            } else {
                System.setProperty(CudaBackend.KERNEL_PROPERTY, old);
            }
        }
    }
}
