package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The IPC handle's by-value passing, checked against FFM's own: the C side of each call is an upcall stub declared
 * with the C signature (the struct by value), which records the handle bytes and the other arguments it received.
 * A handle that reaches it byte for byte, with the pointer and flags in their places, is passed as the C compiler
 * passes it (FFM's upcalls follow the platform ABI).
 */
class IpcHandleByValueTest {
    private static final FunctionDescriptor OPEN_MEM = CudaFunction.cuIpcOpenMemHandle_v2.descriptor();
    private static final FunctionDescriptor OPEN_EVENT = CudaFunction.cuIpcOpenEventHandle.descriptor();

    /** What the last upcall received: the pointer's address, the handle's bytes, the flags (or -1). */
    private static final List<Object> RECEIVED = Collections.synchronizedList(new ArrayList<>());

    static int openMem(MemorySegment out, MemorySegment handle, int flags) {
        RECEIVED.clear();
        RECEIVED.addAll(List.of(out.address(), handle.toArray(JAVA_BYTE), flags));
        return 17;
    }

    static int openEvent(MemorySegment out, MemorySegment handle) {
        RECEIVED.clear();
        RECEIVED.addAll(List.of(out.address(), handle.toArray(JAVA_BYTE), -1));
        return 23;
    }

    private static byte[] distinctBytes(int seed) {
        byte[] b = new byte[CuSymbols.IPC_HANDLE_SIZE];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (seed + 37 * i + (i >> 3)); // every byte differs from its neighbours and its word's others
        }
        b[7] = (byte) 0x80; // a sign bit in a word's top byte
        b[63] = (byte) 0xFF;
        return b;
    }

    private static MemorySegment stub(Arena arena, String name, FunctionDescriptor c)
            throws ReflectiveOperationException {
        MethodHandle target = MethodHandles.lookup().findStatic(IpcHandleByValueTest.class, name,
                c.toMethodType());
        return Linker.nativeLinker().upcallStub(target, c, arena);
    }

    private static void assertReceived(MemorySegment out, byte[] handle, int flags) {
        assertEquals(List.of(out.address(), flags), List.of(RECEIVED.get(0), RECEIVED.get(2)), "pointer, flags");
        assertArrayEquals(handle, (byte[]) RECEIVED.get(1), "the handle's bytes");
    }

    /** Both C signatures, called as the binding calls them on this platform. */
    @Test
    void theLinkedFormPassesTheHandleAsTheCSignatureTakesIt() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(8);
            boolean words = IpcHandleByValue.AS_STACK_WORDS;
            MethodHandle mem = Linker.nativeLinker().downcallHandle(stub(arena, "openMem", OPEN_MEM),
                    IpcHandleByValue.linked(OPEN_MEM));
            MethodHandle event = Linker.nativeLinker().downcallHandle(stub(arena, "openEvent", OPEN_EVENT),
                    IpcHandleByValue.linked(OPEN_EVENT));
            for (int seed = 0; seed < 3; seed++) {
                byte[] handle = distinctBytes(seed);
                assertEquals(17, IpcHandleByValue.call(mem, words, out, handle, 0x5A5A0001 + seed));
                assertReceived(out, handle, 0x5A5A0001 + seed);
                assertEquals(23, IpcHandleByValue.call(event, words, out, handle));
                assertReceived(out, handle, -1);
            }
        }
    }

    /** The struct form, which other platforms link, given the bytes as a heap segment. */
    @Test
    void theStructFormPassesTheBytesToo() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(8);
            MethodHandle mem = Linker.nativeLinker().downcallHandle(stub(arena, "openMem", OPEN_MEM), OPEN_MEM);
            MethodHandle event = Linker.nativeLinker().downcallHandle(stub(arena, "openEvent", OPEN_EVENT),
                    OPEN_EVENT);
            byte[] handle = distinctBytes(5);
            assertEquals(17, IpcHandleByValue.call(mem, false, out, handle, 3));
            assertReceived(out, handle, 3);
            assertEquals(23, IpcHandleByValue.call(event, false, out, handle));
            assertReceived(out, handle, -1);
        }
    }

    @Test
    void onLinuxX8664TheHandleTravelsAsEightStackWordsAfterSixRegisterArguments() {
        Assumptions.assumeTrue(IpcHandleByValue.AS_STACK_WORDS, "Linux x86-64 only");
        List<MemoryLayout> mem = IpcHandleByValue.linked(OPEN_MEM).argumentLayouts();
        List<MemoryLayout> event = IpcHandleByValue.linked(OPEN_EVENT).argumentLayouts();
        assertEquals(List.of(ADDRESS, JAVA_INT), mem.subList(0, 2));
        assertEquals(List.of(ADDRESS), event.subList(0, 1));
        assertEquals(Collections.nCopies(12, JAVA_LONG), mem.subList(2, 14));
        assertEquals(Collections.nCopies(13, JAVA_LONG), event.subList(1, 14));
        assertEquals(14, mem.size());
        assertEquals(14, event.size());
    }

    @Test
    void aWordIsItsEightBytesLittleEndian() {
        byte[] handle = new byte[CuSymbols.IPC_HANDLE_SIZE];
        for (int i = 0; i < 8; i++) {
            handle[8 + i] = (byte) (0xF1 + i); // word 1: F1 .. F8
        }
        assertEquals(0xF8F7F6F5F4F3F2F1L, IpcHandleByValue.word(handle, 1));
        assertEquals(0L, IpcHandleByValue.word(handle, 0));
        assertEquals(0L, IpcHandleByValue.word(handle, 2));
    }

    @Test
    void aHandleOfAnotherLengthIsRefusedBeforeTheCall() {
        MethodHandle never = MethodHandles.throwException(int.class, AssertionError.class);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IpcHandleByValue.call(never, true, MemorySegment.NULL, new byte[63]));
        assertEquals("an IPC handle is 64 bytes, got 63", e.getMessage());
    }

    @Test
    void aSignatureWithoutOneHandleOrWithTooManyRegisterArgumentsIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> IpcHandleByValue.stackWords(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)));
        assertThrows(IllegalArgumentException.class, () -> IpcHandleByValue.stackWords(FunctionDescriptor.of(
                JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, CuSymbols.CU_IPC_MEM_HANDLE)));
    }

    /** The binding's own calls take the bytes: their Java type says so. */
    @Test
    void theBindingsCallsTakeTheBytes() {
        MethodType openMem = MethodType.methodType(int.class, MemorySegment.class, byte[].class, int.class);
        MethodType openEvent = MethodType.methodType(int.class, MemorySegment.class, byte[].class);
        assertEquals(openMem, IpcHandleByValue.javaType(OPEN_MEM));
        assertEquals(openEvent, IpcHandleByValue.javaType(OPEN_EVENT));
        assertEquals(openMem, callType("cuIpcOpenMemHandle_v2"));
        assertEquals(openEvent, callType("cuIpcOpenEventHandle"));
    }

    /** The Java type of {@link IpcCalls}' one method named {@code name}. */
    private static MethodType callType(String name) {
        List<MethodType> types = new ArrayList<>();
        for (Method m : IpcCalls.class.getMethods()) {
            if (m.getName().equals(name)) {
                types.add(MethodType.methodType(m.getReturnType(), m.getParameterTypes()));
            }
        }
        assertEquals(1, types.size(), name + ": one call");
        return types.getFirst();
    }
}
