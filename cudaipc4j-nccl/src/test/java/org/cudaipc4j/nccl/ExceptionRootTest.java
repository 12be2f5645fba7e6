package org.cudaipc4j.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cudaipc4j.testing.ExceptionRoots;
import org.junit.jupiter.api.Test;

class ExceptionRootTest {
    @Test
    void everyPublicExceptionDescendsFromNcclException() {
        assertEquals(names(NcclException.class, NcclCallException.class, CommunicatorAbortedException.class,
                NcclUnavailableException.class, NcclMissingFunctionException.class),
                ExceptionRoots.publicExceptions(NcclException.class));
        assertEquals(Set.of(), ExceptionRoots.notBeneath(NcclException.class));
    }

    private static Set<String> names(Class<?>... classes) {
        return Stream.of(classes).map(Class::getName).collect(Collectors.toSet());
    }
}
