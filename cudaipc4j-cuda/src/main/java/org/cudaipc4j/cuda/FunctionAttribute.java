package org.cudaipc4j.cuda;

/** {@code CUfunction_attribute} values a {@link Kernel} can report. */
public enum FunctionAttribute {
    MAX_THREADS_PER_BLOCK(0),
    SHARED_SIZE_BYTES(1),
    CONST_SIZE_BYTES(2),
    LOCAL_SIZE_BYTES(3),
    NUM_REGS(4),
    PTX_VERSION(5),
    BINARY_VERSION(6),
    CACHE_MODE_CA(7),
    MAX_DYNAMIC_SHARED_SIZE_BYTES(8),
    PREFERRED_SHARED_MEMORY_CARVEOUT(9);

    private final int code;

    FunctionAttribute(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
