package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cudaipc4j.testing.ExceptionRoots;
import org.junit.jupiter.api.Test;

class ExceptionRootTest {
    @Test
    void everyPublicExceptionDescendsFromCoordinationException() {
        assertEquals(names(CoordinationException.class, ControlBlockException.class, SharedSegmentException.class,
                BarrierException.class), ExceptionRoots.publicExceptions(CoordinationException.class));
        assertEquals(Set.of(), ExceptionRoots.notBeneath(CoordinationException.class));
    }

    private static Set<String> names(Class<?>... classes) {
        return Stream.of(classes).map(Class::getName).collect(Collectors.toSet());
    }
}
