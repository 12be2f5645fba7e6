package org.cudaipc4j.cuda;

/** {@code CUfunction_attribute} values a {@link Kernel} can report. */
public enum FunctionAttribute {
    /** {@code CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK}: the most threads per block a launch of the kernel may have. */
    MAX_THREADS_PER_BLOCK(0),
    /** {@code CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES}: statically allocated shared memory per block, in bytes. */
    SHARED_SIZE_BYTES(1),
    /** {@code CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES}: constant memory the kernel uses, in bytes. */
    CONST_SIZE_BYTES(2),
    /** {@code CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES}: local memory per thread, in bytes. */
    LOCAL_SIZE_BYTES(3),
    /** {@code CU_FUNC_ATTRIBUTE_NUM_REGS}: registers per thread. */
    NUM_REGS(4),
    /**
     * {@code CU_FUNC_ATTRIBUTE_PTX_VERSION}: the PTX virtual architecture the kernel was compiled for, as {@code 10 *
     * major + minor}.
     */
    PTX_VERSION(5),
    /**
     * {@code CU_FUNC_ATTRIBUTE_BINARY_VERSION}: the binary architecture the kernel was compiled for, as {@code 10 *
     * major + minor}.
     */
    BINARY_VERSION(6),
    /**
     * {@code CU_FUNC_ATTRIBUTE_CACHE_MODE_CA}: 1 when the kernel was compiled to cache global loads in L1 ({@code
     * -Xptxas --dlcm=ca}).
     */
    CACHE_MODE_CA(7),
    /**
     * {@code CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES}: the most dynamic shared memory a launch may ask for, in
     * bytes.
     */
    MAX_DYNAMIC_SHARED_SIZE_BYTES(8),
    /**
     * {@code CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT}: the preferred share of the L1 cache and shared memory
     * given to shared memory, in percent.
     */
    PREFERRED_SHARED_MEMORY_CARVEOUT(9);

    private final int code;

    FunctionAttribute(int code) {
        this.code = code;
    }

    /** {@return the {@code CUfunction_attribute} value} */
    public int code() {
        return code;
    }
}
