package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cudaipc4j.testing.ExceptionRoots;
import org.junit.jupiter.api.Test;

class ExceptionRootTest {
    @Test
    void everyPublicExceptionDescendsFromCudaDriverException() {
        assertEquals(names(CudaDriverException.class, CudaException.class, DriverNotFoundException.class,
                MissingSymbolException.class), ExceptionRoots.publicExceptions(CudaDriverException.class));
        assertEquals(Set.of(), ExceptionRoots.notBeneath(CudaDriverException.class));
    }

    private static Set<String> names(Class<?>... classes) {
        return Stream.of(classes).map(Class::getName).collect(Collectors.toSet());
    }
}
