package org.cudaipc4j.interop.torch;

/** What giving a torch reference-counter slot back did. */
public enum ReleaseOutcome {
    /** The slot was decremented by one: the producer may free the block once it is 0 (at its next collect). */
    RELEASED,
    /** The slot was already 0 (another reader over-released this share); left alone rather than driven negative. */
    ALREADY_ZERO,
    /** The counter file is gone: the producer has exited, and its memory with it. Nothing to give back. */
    PRODUCER_GONE,
    /** The storage is still open here through other leases; the slot is given back when the last one closes. */
    STILL_OPEN,
    /** This lease was released before: one share, one release. */
    ALREADY_RELEASED
}
