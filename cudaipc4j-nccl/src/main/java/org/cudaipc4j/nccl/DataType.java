package org.cudaipc4j.nccl;

/** {@code ncclDataType_t}: the element types NCCL reduces and moves, with their sizes in bytes. */
public enum DataType {
    INT8(0, 1), UINT8(1, 1), INT32(2, 4), UINT32(3, 4), INT64(4, 8), UINT64(5, 8),
    FLOAT16(6, 2), FLOAT32(7, 4), FLOAT64(8, 8), BFLOAT16(9, 2),
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

    /** The {@code ncclDataType_t} value. */
    public int code() {
        return code;
    }

    /** The size of one element in bytes. */
    public int bytes() {
        return bytes;
    }
}
