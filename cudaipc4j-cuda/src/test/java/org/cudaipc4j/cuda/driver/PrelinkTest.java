package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class PrelinkTest {
    @Test
    void linksEveryBoundFunctionInTheBackground() throws InterruptedException {
        Thread t = Prelink.startInBackground(List.of("cuMemAlloc_v2", "cuInit"));
        assertNotNull(t);
        assertTrue(t.isDaemon(), "must not keep a finished process alive");
        t.join(60_000);
        assertFalse(t.isAlive(), "prelinking did not finish within 60 s");
        if (CudaLibrary.isAvailable()) {
            assertEquals(names(List.of(CudaFunction.values())), Set.copyOf(Prelink.LINKED), "every function linked");
            assertTrue(Stream.of(CudaFunction.values()).allMatch(CudaFunction::isLinked), "every handle linked");
        } else {
            assertEquals(Set.of(), Set.copyOf(Prelink.LINKED), "without a driver there is nothing to link");
        }
    }

    @Test
    void namesAreCheckedUpFront() {
        IllegalArgumentException unbound = assertThrows(IllegalArgumentException.class,
                () -> Prelink.startInBackground(List.of("cuMemAlloc")));
        assertEquals("cuMemAlloc is not a bound driver function", unbound.getMessage());
    }

    private static Set<String> names(List<CudaFunction> functions) {
        return functions.stream().map(CudaFunction::name).collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void canBeTurnedOff() {
        System.setProperty(CudaSettings.NO_PRELINK.name(), "true");
        try {
            assertNull(Prelink.startInBackground(List.of()));
        } finally {
            System.clearProperty(CudaSettings.NO_PRELINK.name());
        }
    }
}
