package org.cudaipc4j.coord;

/**
 * Where a process of the group stands, as recorded in its {@link ControlBlock} slot. The stored code is the
 * ordinal, so a freshly zeroed slot reads {@link #NOT_STARTED}.
 */
public enum ProcessStatus {
    /** The slot has not been claimed by a process yet. */
    NOT_STARTED,
    /** The process joined the group and is setting up. */
    STARTING,
    /** The process finished setting up. */
    READY,
    /** The process is doing its work. */
    RUNNING,
    /** The process finished successfully. */
    DONE,
    /** The process failed (see the control block's abort word for why). */
    FAILED,
    /**
     * The process no longer uses what its siblings or the parent exported (its mappings are closed) and is
     * tearing down; the exporter may free now. Last, so the codes of the others stay as they were.
     */
    RELEASED;

    private static final ProcessStatus[] VALUES = values();

    int code() {
        return ordinal();
    }

    static ProcessStatus ofCode(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new ControlBlockException("unknown process status code " + code + " in the control block");
        }
        return VALUES[code];
    }
}
