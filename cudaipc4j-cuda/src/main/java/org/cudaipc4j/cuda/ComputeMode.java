package org.cudaipc4j.cuda;

/** A device's compute mode ({@code CUcomputemode}); IPC needs {@link #DEFAULT}. */
public enum ComputeMode {
    /** {@code CU_COMPUTEMODE_DEFAULT}: any number of contexts and processes may use the device. */
    DEFAULT(0, "Default"),
    /** {@code CU_COMPUTEMODE_PROHIBITED}: no context can be made on the device. */
    PROHIBITED(2, "Prohibited"),
    /** {@code CU_COMPUTEMODE_EXCLUSIVE_PROCESS}: one process at a time may use the device. */
    EXCLUSIVE_PROCESS(3, "Exclusive Process"),
    /** A mode this enum does not know (e.g. the removed exclusive-thread mode, 1). */
    UNKNOWN(-1, "unknown");

    private final int code;
    private final String displayName;

    ComputeMode(int code, String displayName) {
        this.code = code;
        this.displayName = displayName;
    }

    /** {@return the {@code CUcomputemode} value; {@code -1} for {@link #UNKNOWN}} */
    public int code() {
        return code;
    }

    /** {@return the name as {@code nvidia-smi} prints it, e.g. {@code Exclusive Process}} */
    public String displayName() {
        return displayName;
    }

    /**
     * {@return the mode for {@code code}, or {@link #UNKNOWN}}
     *
     * @param code a {@code CUcomputemode} value
     */
    public static ComputeMode of(int code) {
        for (ComputeMode m : values()) {
            if (m.code == code && m != UNKNOWN) {
                return m;
            }
        }
        return UNKNOWN;
    }
}
