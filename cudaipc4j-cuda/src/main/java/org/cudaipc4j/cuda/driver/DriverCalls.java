package org.cudaipc4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** What the typed layer and the sharing layer both do around a call: out-parameters and the legacy stream's wait. */
public final class DriverCalls {
    private DriverCalls() {}

    /**
     * {@return a pointer-sized out-parameter in {@code arena}, zeroed}
     *
     * @param arena where it lives
     */
    public static MemorySegment pointerOut(Arena arena) {
        return arena.allocate(ADDRESS);
    }

    /**
     * {@return the handle a call stored into the pointer-sized out-parameter {@code out}}
     *
     * @param out the out-parameter
     */
    public static MemorySegment handle(MemorySegment out) {
        return out.get(ADDRESS, 0);
    }

    /**
     * Waits for the legacy default stream ({@code cuStreamSynchronize(NULL)}), where the synchronous memset and copy
     * calls run, and a free in stream order without a stream.
     */
    public static void waitForLegacyStream() {
        StreamCalls.streamSynchronize(MemorySegment.NULL);
    }
}
