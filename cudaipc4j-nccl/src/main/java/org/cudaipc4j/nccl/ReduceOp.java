package org.cudaipc4j.nccl;

/** {@code ncclRedOp_t}: the built-in reductions. */
public enum ReduceOp {
    /** The sum ({@code ncclSum}). */
    SUM(0),
    /** The product ({@code ncclProd}). */
    PROD(1),
    /** The largest ({@code ncclMax}). */
    MAX(2),
    /** The smallest ({@code ncclMin}). */
    MIN(3),
    /** The mean over ranks (sum divided by the rank count). */
    AVG(4);

    private final int code;

    ReduceOp(int code) {
        this.code = code;
    }

    /** {@return the {@code ncclRedOp_t} value} */
    public int code() {
        return code;
    }
}
