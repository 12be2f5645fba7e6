package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a call passes a 64-byte IPC handle by value ({@code cuIpcOpenMemHandle_v2}, {@code cuIpcOpenEventHandle}).
 *
 * <p>FFM passes a struct by value by reading it from its segment word by word at every call; until the JIT has
 * compiled that path (thousands of calls), each read runs the segment's access checks interpreted: on a 2-core
 * x86-64 VM, calls 2 to 100 of a fresh JVM took 7-17 us each that way, about 2.5 us in the form below. A reader
 * makes one such call per block and per share, so the state dict of a fresh process pays it a hundred times.
 *
 * <p>On Linux x86-64 the handle therefore travels as what the System V ABI makes of it: a struct over 16 bytes is
 * of class MEMORY and is copied to the stack, at the lowest stack argument slots, in eight-byte words, and takes no
 * register; the other arguments keep their registers. The function is linked as one of scalars: its own register
 * arguments, {@code long} fillers for the remaining integer registers of the six, then the handle's eight
 * little-endian words, which land in the same stack slots. {@code IpcHandleByValueTest} checks this against FFM's
 * own struct passing through an upcall. Elsewhere (aarch64 passes such a struct by reference to a copy) the struct
 * form is linked and given the handle's bytes.
 */
final class IpcHandleByValue {
    /** {@code CU_IPC_HANDLE_SIZE}: the handle's bytes. */
    private static final int BYTES = CuSymbols.IPC_HANDLE_SIZE;
    /** The handle's eight-byte words. */
    private static final int WORDS = BYTES / Long.BYTES;
    /** The System V x86-64 ABI's integer argument registers. */
    private static final int INTEGER_REGISTERS = 6;

    /** Whether this platform's calls pass the handle as stack words (Linux x86-64). */
    static final boolean AS_STACK_WORDS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).equals("linux")
            && List.of("amd64", "x86_64").contains(System.getProperty("os.arch", ""));

    private IpcHandleByValue() {}

    /**
     * {@return what to link for a function of C signature {@code c}: where it passes a struct (the handle) by value
     * on Linux x86-64, the scalar form; else {@code c}} Such a {@code c} takes integer-class arguments (pointers,
     * {@code int}s) and one 64-byte handle.
     */
    static FunctionDescriptor linked(FunctionDescriptor c) {
        return AS_STACK_WORDS && passesHandle(c) ? stackWords(c) : c;
    }

    /** {@return the Java type of a call of {@code c}: its descriptor's, with a handle passed by value as its bytes} */
    static MethodType javaType(FunctionDescriptor c) {
        MethodType type = c.toMethodType();
        List<MemoryLayout> arguments = c.argumentLayouts();
        for (int i = 0; i < arguments.size(); i++) {
            if (arguments.get(i) instanceof StructLayout) {
                type = type.changeParameterType(i, byte[].class);
            }
        }
        return type;
    }

    private static boolean passesHandle(FunctionDescriptor c) {
        for (MemoryLayout argument : c.argumentLayouts()) {
            if (argument instanceof StructLayout) {
                return true;
            }
        }
        return false;
    }

    /** The scalar form of {@code c}: its other arguments in order, fillers up to six, the handle's eight words. */
    static FunctionDescriptor stackWords(FunctionDescriptor c) {
        List<MemoryLayout> registers = new ArrayList<>();
        int handles = 0;
        for (MemoryLayout argument : c.argumentLayouts()) {
            if (argument instanceof StructLayout s && s.byteSize() == BYTES) {
                handles++;
            } else if (argument instanceof ValueLayout) {
                registers.add(argument);
            } else {
                throw new IllegalArgumentException("not an integer-class argument: " + argument);
            }
        }
        if (handles != 1 || registers.size() > INTEGER_REGISTERS) {
            throw new IllegalArgumentException("not one IPC handle and at most six register arguments: " + c);
        }
        List<MemoryLayout> arguments = new ArrayList<>(registers);
        while (arguments.size() < INTEGER_REGISTERS) {
            arguments.add(JAVA_LONG); // a register the callee does not read
        }
        for (int i = 0; i < WORDS; i++) {
            arguments.add(JAVA_LONG);
        }
        return FunctionDescriptor.of(c.returnLayout().orElseThrow(), arguments.toArray(MemoryLayout[]::new));
    }

    /**
     * Calls {@code linked} (a {@code (pointer, handle)} function) with {@code handle}'s bytes.
     *
     * @param words whether {@code linked} is the {@linkplain #stackWords scalar form}
     */
    static int call(MethodHandle linked, boolean words, MemorySegment a, byte[] handle) throws Throwable {
        requireHandle(handle);
        if (words) {
            return (int) linked.invokeExact(a, 0L, 0L, 0L, 0L, 0L, word(handle, 0), word(handle, 1),
                    word(handle, 2), word(handle, 3), word(handle, 4), word(handle, 5), word(handle, 6),
                    word(handle, 7));
        }
        return (int) linked.invokeExact(a, MemorySegment.ofArray(handle));
    }

    /**
     * Calls {@code linked} (a {@code (pointer, handle, int)} function) with {@code handle}'s bytes.
     *
     * @param words whether {@code linked} is the {@linkplain #stackWords scalar form}
     */
    static int call(MethodHandle linked, boolean words, MemorySegment a, byte[] handle, int c) throws Throwable {
        requireHandle(handle);
        if (words) {
            return (int) linked.invokeExact(a, c, 0L, 0L, 0L, 0L, word(handle, 0), word(handle, 1), word(handle, 2),
                    word(handle, 3), word(handle, 4), word(handle, 5), word(handle, 6), word(handle, 7));
        }
        return (int) linked.invokeExact(a, MemorySegment.ofArray(handle), c);
    }

    private static void requireHandle(byte[] handle) {
        if (handle.length != BYTES) {
            throw new IllegalArgumentException("an IPC handle is " + BYTES + " bytes, got " + handle.length);
        }
    }

    /** Word {@code i} of {@code handle}: bytes {@code 8i} to {@code 8i + 7}, little-endian, as memory holds them. */
    static long word(byte[] handle, int i) {
        int o = i * Long.BYTES;
        return (handle[o] & 0xFFL) | (handle[o + 1] & 0xFFL) << 8 | (handle[o + 2] & 0xFFL) << 16
                | (handle[o + 3] & 0xFFL) << 24 | (handle[o + 4] & 0xFFL) << 32 | (handle[o + 5] & 0xFFL) << 40
                | (handle[o + 6] & 0xFFL) << 48 | (handle[o + 7] & 0xFFL) << 56;
    }
}
