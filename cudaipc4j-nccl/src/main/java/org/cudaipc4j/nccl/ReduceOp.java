package org.cudaipc4j.nccl;

/** {@code ncclRedOp_t}: the built-in reductions. */
public enum ReduceOp {
    SUM(0), PROD(1), MAX(2), MIN(3),
    /** The mean over ranks (sum divided by the rank count). */
    AVG(4);

    private final int code;

    ReduceOp(int code) {
        this.code = code;
    }

    /** The {@code ncclRedOp_t} value. */
    public int code() {
        return code;
    }
}
