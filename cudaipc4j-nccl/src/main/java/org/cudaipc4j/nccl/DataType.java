package org.cudaipc4j.nccl;

/** {@code ncclDataType_t}: the element types NCCL reduces and moves, with their sizes in bytes. */
public enum DataType {
    /** {@code ncclInt8}. */
    INT8(0, 1),
    /** {@code ncclUint8}. */
    UINT8(1, 1),
    /** {@code ncclInt32}. */
    INT32(2, 4),
    /** {@code ncclUint32}. */
    UINT32(3, 4),
    /** {@code ncclInt64}. */
    INT64(4, 8),
    /** {@code ncclUint64}. */
    UINT64(5, 8),
    /** {@code ncclFloat16}. */
    FLOAT16(6, 2),
    /** {@code ncclFloat32}. */
    FLOAT32(7, 4),
    /** {@code ncclFloat64}. */
    FLOAT64(8, 8),
    /** {@code ncclBfloat16}. */
    BFLOAT16(9, 2),
    /** {@code ncclFloat8e4m3}, from NCCL 2.24 on. */
    FLOAT8_E4M3(10, 1),
    /** {@code ncclFloat8e5m2}, from NCCL 2.24 on. */
    FLOAT8_E5M2(11, 1);

    private final int code;
    private final int bytes;

    DataType(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** {@return the {@code ncclDataType_t} value} */
    public int code() {
        return code;
    }

    /** {@return the size of one element in bytes} */
    public int bytes() {
        return bytes;
    }
}
