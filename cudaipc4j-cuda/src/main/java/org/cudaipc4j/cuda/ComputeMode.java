package org.cudaipc4j.cuda;

/** A device's compute mode ({@code CUcomputemode}); IPC needs {@link #DEFAULT}. */
public enum ComputeMode {
    DEFAULT(0, "Default"),
    PROHIBITED(2, "Prohibited"),
    EXCLUSIVE_PROCESS(3, "Exclusive Process"),
    /** A mode this enum does not know (e.g. the removed exclusive-thread mode, 1). */
    UNKNOWN(-1, "unknown");

    private final int code;
    private final String displayName;

    ComputeMode(int code, String displayName) {
        this.code = code;
        this.displayName = displayName;
    }

    public int code() {
        return code;
    }

    /** As {@code nvidia-smi} prints it, e.g. {@code Exclusive Process}. */
    public String displayName() {
        return displayName;
    }

    public static ComputeMode of(int code) {
        for (ComputeMode m : values()) {
            if (m.code == code && m != UNKNOWN) {
                return m;
            }
        }
        return UNKNOWN;
    }
}
