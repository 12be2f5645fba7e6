package org.cudaipc4j.simpleipc.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.cudaipc4j.testing.ExceptionRoots;
import org.junit.jupiter.api.Test;

class ExceptionRootTest {
    @Test
    void everyPublicExceptionDescendsFromBackendException() {
        assertEquals(Set.of(BackendException.class.getName(), NoIpcDeviceException.class.getName()),
                ExceptionRoots.publicExceptions(BackendException.class));
        assertEquals(Set.of(), ExceptionRoots.notBeneath(BackendException.class));
    }
}
