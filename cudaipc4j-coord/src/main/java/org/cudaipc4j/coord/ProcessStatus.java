package org.cudaipc4j.coord;

/**
 * Where a process of the group stands, as recorded in its {@link ControlBlock} slot. Each status is stored as its
 * own fixed code (0 not started, so a freshly zeroed slot reads {@link #NOT_STARTED}; 1 starting, 2 ready,
 * 3 running, 4 done, 5 failed, 6 released), never as its position in this enum: the codes are part of the block's
 * layout and do not change when constants are added or moved.
 */
public enum ProcessStatus {
    /** The slot has not been claimed by a process yet. */
    NOT_STARTED(0),
    /** The process joined the group and is setting up. */
    STARTING(1),
    /** The process finished setting up. */
    READY(2),
    /** The process is doing its work. */
    RUNNING(3),
    /** The process finished successfully. */
    DONE(4),
    /** The process failed (see the control block's abort word for why). */
    FAILED(5),
    /**
     * The process no longer uses what its siblings or the parent exported (its mappings are closed) and is
     * tearing down; the exporter may free now.
     */
    RELEASED(6);

    /** Each status at its code's index (the codes are 0..n-1, each once, as the static check below ensures). */
    private static final ProcessStatus[] BY_CODE = byCode();

    private final int code;

    ProcessStatus(int code) {
        this.code = code;
    }

    /** The code stored in the control block. */
    int code() {
        return code;
    }

    /** The status stored as {@code code}; an unknown code is a damaged or foreign block. */
    static ProcessStatus ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new ControlBlockException("unknown process status code " + code + " in the control block");
        }
        return BY_CODE[code];
    }

    private static ProcessStatus[] byCode() {
        ProcessStatus[] table = new ProcessStatus[values().length];
        for (ProcessStatus s : values()) {
            if (s.code < 0 || s.code >= table.length || table[s.code] != null) {
                throw new ExceptionInInitializerError("process status codes must be 0.." + (table.length - 1)
                        + ", each once: " + s + " has " + s.code);
            }
            table[s.code] = s;
        }
        return table;
    }
}
