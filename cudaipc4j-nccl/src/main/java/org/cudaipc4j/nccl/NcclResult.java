package org.cudaipc4j.nccl;

/**
 * {@code ncclResult_t}. A code this table does not know (a later NCCL's) is kept as its number by
 * {@link NcclException#code()}; {@link #of(int)} returns {@code null} for it.
 */
public enum NcclResult {
    SUCCESS(0, "ncclSuccess"),
    UNHANDLED_CUDA_ERROR(1, "ncclUnhandledCudaError"),
    SYSTEM_ERROR(2, "ncclSystemError"),
    INTERNAL_ERROR(3, "ncclInternalError"),
    INVALID_ARGUMENT(4, "ncclInvalidArgument"),
    INVALID_USAGE(5, "ncclInvalidUsage"),
    REMOTE_ERROR(6, "ncclRemoteError"),
    IN_PROGRESS(7, "ncclInProgress");

    private final int code;
    private final String cName;

    NcclResult(int code, String cName) {
        this.code = code;
        this.cName = cName;
    }

    /** The number NCCL returns. */
    public int code() {
        return code;
    }

    /** The name {@code nccl.h} gives it, such as {@code ncclRemoteError}. */
    public String cName() {
        return cName;
    }

    /** The result with {@code code}, or {@code null} when this table does not know it. */
    public static NcclResult of(int code) {
        for (NcclResult r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }

    /** {@code nccl.h}'s name for {@code code}, or {@code ncclResult(N)} for a code this table does not know. */
    public static String nameOf(int code) {
        NcclResult r = of(code);
        return r == null ? "ncclResult(" + code + ")" : r.cName;
    }
}
