package org.cudaipc4j.interop;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the time of an open goes: nanoseconds per phase, added up over the opens that were given this record (so
 * one record per open gives that open's breakdown, one record for many their sum). The opens that take it are a
 * descriptor's ({@code Descriptors.open} of the {@code opening} package, through its options) and torch's reader's
 * ({@code TorchReader.open}). For measuring ({@code cudaipc4j bench interop}); an open without a record takes no
 * times. Not thread-safe: one record per thread.
 */
public final class OpenPhases {
    /** The phases of an open, in the order they run; an open runs those of its kind. */
    public enum Phase {
        /** The storage's key ({@code TorchStorageKey}; an {@code 'e'} handle's producer checked alive). */
        KEY("key"),
        /** The counter file looked up (mapped on its first use), the slot read, or given back on a cache hit. */
        COUNTER("counter"),
        /** The held slot written to the lease book that the watcher reads. */
        BOOK("book"),
        /** The exporter's holder table opened and signed into. */
        HOLD("hold"),
        /** The mapped block looked up in the reader's cache. */
        BLOCK_LOOKUP("block_lookup"),
        /** {@code 'c'} and legacy exports: {@code cuIpcOpenMemHandle} (and the block's size). */
        IPC_OPEN("ipc_open"),
        /**
         * The exporter's file descriptors taken ({@code pidfd_open}, {@code pidfd_getfd} each): an {@code 'e'}
         * handle's chunks, a VMM or pool export's by its {@code fd_numbers}.
         */
        PIDFD("pidfd"),
        /** {@code 'e'}: the chunks imported, one range reserved, the chunks mapped, access set, descriptors closed. */
        CHUNK_MAP("chunk_map"),
        /** A VMM export: imported, its range reserved, mapped and made accessible. */
        VMM_MAP("vmm_map"),
        /** A pool export: the pool imported ({@code cuMemPoolImportFromShareableHandle}) and its access set. */
        POOL_IMPORT("pool_import"),
        /** A pool export: the buffer's pointer imported ({@code cuMemPoolImportPointer}). */
        POINTER_IMPORT("pointer_import"),
        /** A VMM or pool export: the descriptors taken from the exporter closed once imported. */
        FD_CLOSE("fd_close"),
        /** The producer's event opened ({@code cuIpcOpenEventHandle}). */
        EVENT_OPEN("event_open"),
        /** The reader's stream made to wait on it ({@code cuStreamWaitEvent}). */
        EVENT_WAIT("event_wait"),
        /** The opened event destroyed ({@code cuEventDestroy}). */
        EVENT_DESTROY("event_destroy"),
        /** The view made and owned by the context. */
        VIEW("view");

        private final String code;

        Phase(String code) {
            this.code = code;
        }

        /** {@return the phase's name in reports (snake case, stable)} */
        public String code() {
            return code;
        }
    }

    private static final Phase[] PHASES = Phase.values();
    private final long[] nanos = new long[PHASES.length];
    private long last;

    /** An empty record. */
    public OpenPhases() {}

    /** Starts timing the next phase from now. */
    public void start() {
        last = System.nanoTime();
    }

    /**
     * Ends {@code phase} now (started by {@link #start()} or the previous lap) and starts the next.
     *
     * @param phase the phase that ends
     */
    public void lap(Phase phase) {
        lapAt(phase, System.nanoTime());
    }

    /**
     * Adds the time from the last lap to {@code now} to {@code phase}: a step timed by the code it called.
     *
     * @param phase the phase that ended
     * @param now the {@link System#nanoTime()} at which it ended
     */
    public void lapAt(Phase phase, long now) {
        nanos[phase.ordinal()] += now - last;
        last = now;
    }

    /**
     * {@return the nanoseconds spent in {@code phase}}
     *
     * @param phase the phase
     */
    public long nanos(Phase phase) {
        return nanos[phase.ordinal()];
    }

    /** {@return every phase that took time, by its code, in order, in nanoseconds} */
    public Map<String, Long> byCode() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Phase p : PHASES) {
            if (nanos[p.ordinal()] != 0) {
                m.put(p.code(), nanos[p.ordinal()]);
            }
        }
        return m;
    }

    /** Sets every phase back to 0. */
    public void clear() {
        java.util.Arrays.fill(nanos, 0);
    }

    /**
     * {@link #start()} where an open is timed: an untimed open passes null and takes no time.
     *
     * @param p the record, or null
     */
    public static void start(OpenPhases p) {
        if (p != null) {
            p.start();
        }
    }

    /**
     * {@link #lap(Phase)} where an open is timed: an untimed open passes null and takes no time.
     *
     * @param p the record, or null
     * @param phase the phase that ends
     */
    public static void lap(OpenPhases p, Phase phase) {
        if (p != null) {
            p.lap(phase);
        }
    }
}
