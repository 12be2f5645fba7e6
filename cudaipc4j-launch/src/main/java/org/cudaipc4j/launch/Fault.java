package org.cudaipc4j.launch;

import java.util.Objects;

/**
 * What went wrong with one rank of a {@link RankGroup}, as this rank learned it: by its own heartbeat watch or
 * relayed by rank 0.
 *
 * @param rank the rank that failed
 * @param kind what happened to it
 * @param message one line for the user, such as {@code rank 2 hung: silent for 3.0 s}
 */
public record Fault(int rank, Kind kind, String message) {
    /** What happened to a rank. */
    public enum Kind {
        /** Its connection closed or broke without a goodbye: the process ended or its host is gone. */
        DIED(1),
        /** Nothing came from it for longer than the silence limit: stopped (SIGSTOP), hung, or cut off. */
        HUNG(2),
        /** Rank 0 closed its group before this rank did: the group is gone. */
        LEFT(3);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The kind's number on the wire. */
        int code() {
            return code;
        }

        /** The kind with number {@code code}; a number this version does not know counts as {@link #DIED}. */
        static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return DIED;
        }
    }

    /**
     * A fault.
     *
     * @param rank the rank that failed
     * @param kind what happened to it
     * @param message one line for the user
     */
    public Fault {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }
}
