package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.cuda.CudaBackend;
import org.cudaipc4j.simpleipc.host.HostBackend;
import org.junit.jupiter.api.Test;

/** A child makes its backend from the name its parent's backend reports: the name must make the same kind. */
class BackendsTest {
    @Test
    void eachBackendsNameMakesABackendOfItsKind() {
        try (CudaBackend cuda = new CudaBackend(); Backend made = Backends.create(cuda.name(), 0)) {
            assertInstanceOf(CudaBackend.class, made);
        }
        try (HostBackend host = new HostBackend(3); Backend made = Backends.create(host.name(), 3)) {
            assertEquals(3, assertInstanceOf(HostBackend.class, made).deviceCount());
        }
    }

    @Test
    void anUnknownNameIsRefused() {
        assertEquals("unknown backend 'gpu'",
                assertThrows(IllegalArgumentException.class, () -> Backends.create("gpu", 1)).getMessage());
    }
}
