package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DowncallsTest {
    private static final SymbolLookup LIBC = Linker.nativeLinker().defaultLookup();

    @Test
    void aFunctionTheLibraryHasIsLinked() throws Throwable {
        MethodHandle abs = Downcalls.link(LIBC, "labs", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG),
                () -> new IllegalStateException("not called"));
        assertEquals(42L, (long) abs.invokeExact(-42L));
    }

    @Test
    void aMissingFunctionThrowsAtEachCallWithTheSameTypeAndAFreshException() throws Throwable {
        AtomicInteger made = new AtomicInteger();
        FunctionDescriptor descriptor = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG);
        MethodHandle missing = Downcalls.link(LIBC, "cudaipc4j_absent_function", descriptor,
                () -> new IllegalStateException("absent, call " + made.incrementAndGet()));
        assertEquals(descriptor.toMethodType(), missing.type());
        IllegalStateException first = assertThrows(IllegalStateException.class,
                () -> { int ignored = (int) missing.invokeExact(1, 2L); });
        IllegalStateException second = assertThrows(IllegalStateException.class,
                () -> { int ignored = (int) missing.invokeExact(1, 2L); });
        assertEquals("absent, call 1", first.getMessage());
        assertEquals("absent, call 2", second.getMessage());
        assertNotSame(first, second);
    }

    @Test
    void aMissingFunctionLinkedWithErrnosCaptureTakesTheCaptureSegmentFirst() {
        FunctionDescriptor descriptor = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
        MethodHandle missing = Downcalls.link(LIBC, "cudaipc4j_absent_function", descriptor,
                () -> new IllegalStateException("absent"), Linker.Option.captureCallState("errno"));
        MethodHandle present = Downcalls.link(LIBC, "close", descriptor, () -> new IllegalStateException("absent"),
                Linker.Option.captureCallState("errno"));
        assertEquals(present.type(), missing.type());
        assertEquals(MemorySegment.class, missing.type().parameterType(0));
        assertThrows(IllegalStateException.class,
                () -> { int ignored = (int) missing.invokeExact(MemorySegment.NULL, 1); });
    }
}
