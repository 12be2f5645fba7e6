package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cudaipc4j.testing.ExceptionRoots;
import org.junit.jupiter.api.Test;

class ExceptionRootTest {
    @Test
    void everyPublicExceptionDescendsFromLaunchException() {
        assertEquals(names(LaunchException.class, LaunchEnvironmentException.class, RendezvousException.class),
                ExceptionRoots.publicExceptions(LaunchException.class));
        assertEquals(Set.of(), ExceptionRoots.notBeneath(LaunchException.class));
    }

    private static Set<String> names(Class<?>... classes) {
        return Stream.of(classes).map(Class::getName).collect(Collectors.toSet());
    }
}
