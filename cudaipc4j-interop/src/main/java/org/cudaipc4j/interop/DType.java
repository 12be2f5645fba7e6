package org.cudaipc4j.interop;

/**
 * An element type of a tensor, named as torch names it without the {@code torch.} prefix: the stable names of the
 * descriptor's {@code tensor.dtype} (docs/interop.md). Every dtype torch can share over CUDA, with its element size.
 */
public enum DType {
    BOOL("bool", 1),
    UINT8("uint8", 1),
    INT8("int8", 1),
    INT16("int16", 2),
    INT32("int32", 4),
    INT64("int64", 8),
    UINT16("uint16", 2),
    UINT32("uint32", 4),
    UINT64("uint64", 8),
    FLOAT16("float16", 2),
    BFLOAT16("bfloat16", 2),
    FLOAT32("float32", 4),
    FLOAT64("float64", 8),
    COMPLEX64("complex64", 8),
    COMPLEX128("complex128", 16),
    FLOAT8_E4M3FN("float8_e4m3fn", 1),
    FLOAT8_E5M2("float8_e5m2", 1),
    FLOAT8_E4M3FNUZ("float8_e4m3fnuz", 1),
    FLOAT8_E5M2FNUZ("float8_e5m2fnuz", 1);

    private final String stableName;
    private final int elementSize;

    DType(String stableName, int elementSize) {
        this.stableName = stableName;
        this.elementSize = elementSize;
    }

    /** The name in descriptors, e.g. {@code bfloat16}. */
    public String stableName() {
        return stableName;
    }

    /** Bytes per element. */
    public int elementSize() {
        return elementSize;
    }

    /**
     * The dtype named {@code name} ({@code bfloat16}; torch's {@code torch.bfloat16} is accepted too).
     *
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
