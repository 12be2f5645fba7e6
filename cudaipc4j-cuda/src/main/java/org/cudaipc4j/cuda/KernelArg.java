package org.cudaipc4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * One kernel argument, laid out as the kernel's parameter is: its size and alignment, and how to write its value.
 * Scalars and device pointers have factories; any other parameter (a struct passed by value, a vector type such
 * as {@code float4}) is {@link #of(MemoryLayout, MemorySegment) a layout and the bytes of its value}.
 */
public sealed interface KernelArg {
    /** {@return bytes the parameter occupies} */
    long size();

    /** {@return its alignment in bytes (a power of two, at most {@value Kernel#MAX_ALIGNMENT})} */
    long alignment();

    /**
     * Writes the value at {@code offset} of {@code values} (aligned as {@link #alignment()} says).
     *
     * @param values the launch's parameter buffer
     * @param offset where this parameter starts in it
     */
    void writeTo(MemorySegment values, long offset);

    /**
     * A device pointer parameter: {@code memory}'s address.
     *
     * @param memory the memory whose address is passed
     * @return the parameter
     */
    static KernelArg pointer(DeviceMemory memory) {
        return new Scalar(8, memory.address());
    }

    /**
     * A device pointer parameter.
     *
     * @param address the device address
     * @return the parameter
     */
    static KernelArg pointer(long address) {
        return new Scalar(8, address);
    }

    /**
     * A {@code char}, {@code signed char} or {@code unsigned char} parameter.
     *
     * @param value the value
     * @return the parameter
     */
    static KernelArg int8(byte value) {
        return new Scalar(1, value);
    }

    /**
     * A {@code short} or {@code unsigned short} parameter.
     *
     * @param value the value
     * @return the parameter
     */
    static KernelArg int16(short value) {
        return new Scalar(2, value);
    }

    /**
     * An {@code int} or {@code unsigned int} parameter.
     *
     * @param value the value
     * @return the parameter
     */
    static KernelArg int32(int value) {
        return new Scalar(4, value);
    }

    /**
     * A {@code long long} or {@code unsigned long long} (or {@code size_t}) parameter.
     *
     * @param value the value
     * @return the parameter
     */
    static KernelArg int64(long value) {
        return new Scalar(8, value);
    }

    /**
     * A {@code float} parameter.
     *
     * @param value the value
     * @return the parameter
     */
    static KernelArg float32(float value) {
        return new Scalar(-4, Float.floatToRawIntBits(value));
    }

    /**
     * A {@code double} parameter.
     *
     * @param value the value
     * @return the parameter
     */
    static KernelArg float64(double value) {
        return new Scalar(-8, Double.doubleToRawLongBits(value));
    }

    /**
     * A parameter of any type: {@code layout} gives its size and alignment (e.g. a {@code StructLayout} matching the
     * kernel's struct, with padding), {@code value} its bytes, copied now.
     *
     * @param layout the parameter's C type
     * @param value its bytes
     * @return the parameter
     * @throws IllegalArgumentException when {@code value} is not {@code layout}'s size or the alignment is above
     *                                  {@value Kernel#MAX_ALIGNMENT}
     */
    static KernelArg of(MemoryLayout layout, MemorySegment value) {
        if (value.byteSize() != layout.byteSize()) {
            throw new IllegalArgumentException("the value has " + value.byteSize() + " bytes, its layout "
                    + layout.byteSize());
        }
        return bytes(value.toArray(JAVA_BYTE), layout.byteAlignment());
    }

    /**
     * A parameter of {@code value.length} bytes aligned to {@code alignment}.
     *
     * @param value the bytes, copied now
     * @param alignment the alignment in bytes
     * @return the parameter
     * @throws IllegalArgumentException for an empty value or an alignment that is not a power of two up to
     *                                  {@value Kernel#MAX_ALIGNMENT}
     */
    static KernelArg bytes(byte[] value, long alignment) {
        if (value.length == 0 || alignment <= 0 || Long.bitCount(alignment) != 1 || alignment > Kernel.MAX_ALIGNMENT) {
            throw new IllegalArgumentException("a kernel argument needs at least 1 byte and an alignment that is a "
                    + "power of two up to " + Kernel.MAX_ALIGNMENT + ", got " + value.length + " bytes aligned to "
                    + alignment);
        }
        return new Bytes(value.clone(), alignment);
    }

    /**
     * A scalar of {@code |size|} bytes, naturally aligned; a negative size marks a floating-point value (its raw
     * bits). {@code bits} holds the value in its low bytes.
     *
     * @param kind the size in bytes, negative for a floating-point value
     * @param bits the value in its low bytes
     */
    record Scalar(int kind, long bits) implements KernelArg {
        @Override
        public long size() {
            return Math.abs(kind);
        }

        @Override
        public long alignment() {
            return Math.abs(kind);
        }

        @Override
        public void writeTo(MemorySegment values, long offset) {
            switch (kind) {
                case 1 -> values.set(JAVA_BYTE, offset, (byte) bits);
                case 2 -> values.set(JAVA_SHORT, offset, (short) bits);
                case 4 -> values.set(JAVA_INT, offset, (int) bits);
                case 8 -> values.set(JAVA_LONG, offset, bits);
                case -4 -> values.set(JAVA_FLOAT, offset, Float.intBitsToFloat((int) bits));
                case -8 -> values.set(JAVA_DOUBLE, offset, Double.longBitsToDouble(bits));
                default -> throw new IllegalStateException("scalar of kind " + kind);
            }
        }
    }

    /**
     * Any bytes at any power-of-two alignment.
     *
     * @param value the bytes
     * @param alignment the alignment in bytes
     */
    record Bytes(byte[] value, long alignment) implements KernelArg {
        @Override
        public long size() {
            return value.length;
        }

        @Override
        public void writeTo(MemorySegment values, long offset) {
            MemorySegment.copy(value, 0, values, JAVA_BYTE, offset, value.length);
        }
    }
}
