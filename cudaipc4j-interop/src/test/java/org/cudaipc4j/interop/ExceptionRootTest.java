package org.cudaipc4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cudaipc4j.interop.opening.OpenRefusedException;
import org.cudaipc4j.interop.torch.TorchInteropException;
import org.cudaipc4j.testing.ExceptionRoots;
import org.junit.jupiter.api.Test;

class ExceptionRootTest {
    @Test
    void everyPublicExceptionDescendsFromInteropException() {
        assertEquals(names(InteropException.class, DescriptorFormatException.class, OpenRefusedException.class,
                TorchInteropException.class), ExceptionRoots.publicExceptions(InteropException.class));
        assertEquals(Set.of(), ExceptionRoots.notBeneath(InteropException.class));
    }

    private static Set<String> names(Class<?>... classes) {
        return Stream.of(classes).map(Class::getName).collect(Collectors.toSet());
    }
}
