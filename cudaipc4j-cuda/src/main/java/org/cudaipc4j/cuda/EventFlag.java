package org.cudaipc4j.cuda;

import java.util.Set;

/** {@code CUevent_flags}. An interprocess event needs {@link #INTERPROCESS} and {@link #DISABLE_TIMING}. */
public enum EventFlag {
    /** {@code CU_EVENT_BLOCKING_SYNC}: a host thread waiting on the event sleeps instead of spinning. */
    BLOCKING_SYNC(0x1),
    /** {@code CU_EVENT_DISABLE_TIMING}: no timestamps; cheaper, and required for interprocess events. */
    DISABLE_TIMING(0x2),
    /** {@code CU_EVENT_INTERPROCESS}: the event can be exported to other processes. */
    INTERPROCESS(0x4);

    private final int bit;

    EventFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the flag's bit in {@code CUevent_flags}} */
    public int bit() {
        return bit;
    }

    /**
     * {@return the flags word for {@code flags}}
     *
     * @param flags the flags
     */
    public static int bits(Set<EventFlag> flags) {
        int bits = 0;
        for (EventFlag f : flags) {
            bits |= f.bit;
        }
        return bits;
    }
}
