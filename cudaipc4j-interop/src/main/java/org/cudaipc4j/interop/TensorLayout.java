package org.cudaipc4j.interop;

import java.util.Arrays;
import java.util.Objects;

/**
 * What makes bytes a tensor: dtype, shape, strides (in elements, as torch counts them) and the offset of the first
 * element (in elements) from the start of the storage. Views with strides, non-zero offsets and stride 0 (broadcast)
 * are all described; an empty tensor has a 0 in its shape. An immutable value.
 */
public final class TensorLayout {
    private final DType dtype;
    private final long[] shape;
    private final long[] strides;
    private final long offset;
    private final long elementCount;
    private final long extentBytes;

    private TensorLayout(DType dtype, long[] shape, long[] strides, long offset, long elementCount, long extentBytes) {
        this.dtype = dtype;
        this.shape = shape;
        this.strides = strides;
        this.offset = offset;
        this.elementCount = elementCount;
        this.extentBytes = extentBytes;
    }

    /**
     * {@return a layout}
     *
     * @param dtype the element type
     * @param shape the size of each dimension
     * @param strides the step of each dimension, in elements
     * @param offset the first element's offset from the storage's start, in elements
     * @throws IllegalArgumentException for a negative dimension, stride or offset, shape and strides of different
     *                                  ranks, or a tensor whose elements or bytes do not fit a long
     */
    public static TensorLayout of(DType dtype, long[] shape, long[] strides, long offset) {
        Objects.requireNonNull(dtype, "dtype");
        if (shape.length != strides.length) {
            throw new IllegalArgumentException("tensor shape has " + shape.length + " dimensions but strides has "
                    + strides.length);
        }
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new IllegalArgumentException("tensor shape[" + i + "] is negative: " + shape[i]);
            }
            if (strides[i] < 0) {
                throw new IllegalArgumentException("tensor strides[" + i + "] is negative: " + strides[i]);
            }
        }
        if (offset < 0) {
            throw new IllegalArgumentException("tensor offset is negative: " + offset);
        }
        long elements;
        long extent;
        try {
            elements = elementCount(shape);
            extent = elements == 0 ? 0 : extentBytes(dtype, shape, strides, offset);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("tensor of shape " + Arrays.toString(shape) + ", strides "
                    + Arrays.toString(strides) + " and offset " + offset + " reaches beyond 2^63 bytes");
        }
        return new TensorLayout(dtype, shape.clone(), strides.clone(), offset, elements, extent);
    }

    /**
     * {@return a contiguous (row-major) tensor of {@code shape} at offset 0}
     *
     * @param dtype the element type
     * @param shape the size of each dimension
     */
    public static TensorLayout contiguous(DType dtype, long... shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            strides[i] = s;
            s *= Math.max(shape[i], 1);
        }
        return of(dtype, shape, strides, 0);
    }

    /** {@return the element type} */
    public DType dtype() {
        return dtype;
    }

    /** {@return a copy of the shape} */
    public long[] shape() {
        return shape.clone();
    }

    /** {@return a copy of the strides, in elements} */
    public long[] strides() {
        return strides.clone();
    }

    /**
     * Offset of the first element from the storage's start, in elements.
     *
     * @return the offset in elements
     */
    public long offset() {
        return offset;
    }

    /** {@return the number of elements (0 for an empty tensor)} */
    public long elementCount() {
        return elementCount;
    }

    private static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /**
     * {@return the bytes of the storage the tensor reaches: from its start to the end of its last element, 0 when it is
     * empty} A reader checks it against the storage's size before touching memory.
     */
    public long extentBytes() {
        return extentBytes;
    }

    /** From the storage's start to the end of the last element of a tensor that has elements. */
    private static long extentBytes(DType dtype, long[] shape, long[] strides, long offset) {
        long last = offset;
        for (int i = 0; i < shape.length; i++) {
            last = Math.addExact(last, Math.multiplyExact(shape[i] - 1, strides[i]));
        }
        return Math.multiplyExact(Math.addExact(last, 1), (long) dtype.elementSize());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorLayout t && t.dtype == dtype && Arrays.equals(t.shape, shape)
                && Arrays.equals(t.strides, strides) && t.offset == offset;
    }

    @Override
    public int hashCode() {
        return Objects.hash(dtype, Arrays.hashCode(shape), Arrays.hashCode(strides), offset);
    }

    @Override
    public String toString() {
        return dtype + Arrays.toString(shape) + " strides " + Arrays.toString(strides) + " offset " + offset;
    }
}
