package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.IpcMode;
import org.cudaipc4j.simpleipc.cuda.CudaBackend;
import org.cudaipc4j.simpleipc.host.HostBackend;
import org.cudaipc4j.simpleipc.kernels.BuiltinKernels;
import org.junit.jupiter.api.Test;

/** A child makes its backend from the kind its parent settled on, configured by the run's options. */
class BackendsTest {
    private static final SimpleIpcOptions OPTIONS = new SimpleIpcOptions(1024, 1, List.of(), 1, BackendKind.AUTO, 3,
            Duration.ofSeconds(60), false, -1, BuiltinKernels.Fill.SIMPLE, SimpleIpcOptions.Verify.DEVICE,
            IpcMode.LEGACY, SimpleIpcOptions.Sync.COUNTERS, Duration.ofSeconds(5));

    @Test
    void eachKindMakesABackendOfItsKind() {
        try (Backend made = Backends.create(BackendKind.CUDA, OPTIONS)) {
            assertEquals("cuda", assertInstanceOf(CudaBackend.class, made).name());
        }
        try (Backend made = Backends.create(BackendKind.HOST, OPTIONS)) {
            assertEquals(3, assertInstanceOf(HostBackend.class, made).deviceCount());
        }
    }

    @Test
    void autoIsNotABackend() {
        assertThrows(IllegalArgumentException.class, () -> Backends.create(BackendKind.AUTO, OPTIONS));
    }
}
