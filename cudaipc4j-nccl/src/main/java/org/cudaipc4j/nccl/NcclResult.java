package org.cudaipc4j.nccl;

/**
 * {@code ncclResult_t}. A code this table does not know (a later NCCL's) is kept as its number by
 * {@link NcclCallException#code()}; {@link #of(int)} returns {@code null} for it.
 */
public enum NcclResult {
    /** {@code ncclSuccess} ({@code 0}). */
    SUCCESS(0, "ncclSuccess"),
    /** {@code ncclUnhandledCudaError} ({@code 1}). */
    UNHANDLED_CUDA_ERROR(1, "ncclUnhandledCudaError"),
    /** {@code ncclSystemError} ({@code 2}). */
    SYSTEM_ERROR(2, "ncclSystemError"),
    /** {@code ncclInternalError} ({@code 3}). */
    INTERNAL_ERROR(3, "ncclInternalError"),
    /** {@code ncclInvalidArgument} ({@code 4}). */
    INVALID_ARGUMENT(4, "ncclInvalidArgument"),
    /** {@code ncclInvalidUsage} ({@code 5}). */
    INVALID_USAGE(5, "ncclInvalidUsage"),
    /** {@code ncclRemoteError} ({@code 6}). */
    REMOTE_ERROR(6, "ncclRemoteError"),
    /** {@code ncclInProgress} ({@code 7}). */
    IN_PROGRESS(7, "ncclInProgress");

    private final int code;
    private final String cName;

    NcclResult(int code, String cName) {
        this.code = code;
        this.cName = cName;
    }

    /** {@return the number NCCL returns} */
    public int code() {
        return code;
    }

    /** {@return the name {@code nccl.h} gives it, such as {@code ncclRemoteError}} */
    public String cName() {
        return cName;
    }

    /**
     * {@return the result with {@code code}, or {@code null} when this table does not know it}
     *
     * @param code an {@code ncclResult_t}
     */
    public static NcclResult of(int code) {
        for (NcclResult r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }

    /**
     * {@return {@code nccl.h}'s name for {@code code}, or {@code ncclResult(N)} for a code this table does not know}
     *
     * @param code an {@code ncclResult_t}
     */
    public static String nameOf(int code) {
        NcclResult r = of(code);
        return r == null ? "ncclResult(" + code + ")" : r.cName;
    }
}
