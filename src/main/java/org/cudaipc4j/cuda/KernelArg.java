package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * One kernel argument, typed as the kernel's parameter is: a device pointer, a 32- or 64-bit integer, a byte
 * ({@code unsigned char} too) or a float.
 */
public sealed interface KernelArg {
    /** Writes the value at the start of {@code slot} (8 bytes, 8-aligned). */
    void writeTo(MemorySegment slot);

    /** A device pointer parameter: {@code memory}'s address. */
    static KernelArg pointer(DeviceMemory memory) {
        return new Pointer(memory.address());
    }

    /** A device pointer parameter. */
    static KernelArg pointer(long address) {
        return new Pointer(address);
    }

    static KernelArg int32(int value) {
        return new Int32(value);
    }

    static KernelArg int64(long value) {
        return new Int64(value);
    }

    static KernelArg int8(byte value) {
        return new Int8(value);
    }

    static KernelArg float32(float value) {
        return new Float32(value);
    }

    record Pointer(long address) implements KernelArg {
        @Override
        public void writeTo(MemorySegment slot) {
            slot.set(JAVA_LONG, 0, address);
        }
    }

    record Int32(int value) implements KernelArg {
        @Override
        public void writeTo(MemorySegment slot) {
            slot.set(JAVA_INT, 0, value);
        }
    }

    record Int64(long value) implements KernelArg {
        @Override
        public void writeTo(MemorySegment slot) {
            slot.set(JAVA_LONG, 0, value);
        }
    }

    record Int8(byte value) implements KernelArg {
        @Override
        public void writeTo(MemorySegment slot) {
            slot.set(JAVA_BYTE, 0, value);
        }
    }

    record Float32(float value) implements KernelArg {
        @Override
        public void writeTo(MemorySegment slot) {
            slot.set(JAVA_FLOAT, 0, value);
        }
    }
}
