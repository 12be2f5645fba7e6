package org.cudaipc4j.interop;

/**
 * An element type of a tensor, named as torch names it without the {@code torch.} prefix: the stable names of the
 * descriptor's {@code tensor.dtype} (docs/interop-format.md). Every dtype torch can share over CUDA, with its element
 * size.
 */
public enum DType {
    /** {@code torch.bool}, 1-byte elements. */
    BOOL("bool", 1),
    /** {@code torch.uint8}, 1-byte elements. */
    UINT8("uint8", 1),
    /** {@code torch.int8}, 1-byte elements. */
    INT8("int8", 1),
    /** {@code torch.int16}, 2-byte elements. */
    INT16("int16", 2),
    /** {@code torch.int32}, 4-byte elements. */
    INT32("int32", 4),
    /** {@code torch.int64}, 8-byte elements. */
    INT64("int64", 8),
    /** {@code torch.uint16}, 2-byte elements. */
    UINT16("uint16", 2),
    /** {@code torch.uint32}, 4-byte elements. */
    UINT32("uint32", 4),
    /** {@code torch.uint64}, 8-byte elements. */
    UINT64("uint64", 8),
    /** {@code torch.float16}, 2-byte elements. */
    FLOAT16("float16", 2),
    /** {@code torch.bfloat16}, 2-byte elements. */
    BFLOAT16("bfloat16", 2),
    /** {@code torch.float32}, 4-byte elements. */
    FLOAT32("float32", 4),
    /** {@code torch.float64}, 8-byte elements. */
    FLOAT64("float64", 8),
    /** {@code torch.complex64}, 8-byte elements. */
    COMPLEX64("complex64", 8),
    /** {@code torch.complex128}, 16-byte elements. */
    COMPLEX128("complex128", 16),
    /** {@code torch.float8_e4m3fn}, 1-byte elements. */
    FLOAT8_E4M3FN("float8_e4m3fn", 1),
    /** {@code torch.float8_e5m2}, 1-byte elements. */
    FLOAT8_E5M2("float8_e5m2", 1),
    /** {@code torch.float8_e4m3fnuz}, 1-byte elements. */
    FLOAT8_E4M3FNUZ("float8_e4m3fnuz", 1),
    /** {@code torch.float8_e5m2fnuz}, 1-byte elements. */
    FLOAT8_E5M2FNUZ("float8_e5m2fnuz", 1);

    private final String stableName;
    private final int elementSize;

    DType(String stableName, int elementSize) {
        this.stableName = stableName;
        this.elementSize = elementSize;
    }

    /** {@return the name in descriptors, e.g. {@code bfloat16}} */
    public String stableName() {
        return stableName;
    }

    /** {@return bytes per element} */
    public int elementSize() {
        return elementSize;
    }

    /**
     * {@return the dtype named {@code name} ({@code bfloat16}; torch's {@code torch.bfloat16} is accepted too)}
     *
     * @param name the dtype's name
     * @throws IllegalArgumentException naming the unknown dtype and listing the known ones
     */
    public static DType of(String name) {
        String n = name.startsWith("torch.") ? name.substring(6) : name;
        for (DType d : values()) {
            if (d.stableName.equals(n)) {
                return d;
            }
        }
        StringBuilder known = new StringBuilder();
        for (DType d : values()) {
            known.append(known.isEmpty() ? "" : ", ").append(d.stableName);
        }
        throw new IllegalArgumentException("unknown dtype '" + name + "' (known: " + known + ")");
    }

    @Override
    public String toString() {
        return stableName;
    }
}
