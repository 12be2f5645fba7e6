package org.cudaipc4j.interop.torch;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One share opened here: holds its storage's reference-counter slot until {@link #release()} (one share, one
 * release; a second release does nothing). Thread-safe.
 */
public final class Lease implements AutoCloseable {
    private final TorchLeases owner;
    private final TorchLeases.Entry entry;
    private final boolean cacheHit;
    private final ReleaseOutcome atAcquire;
    private final AtomicBoolean released = new AtomicBoolean();

    Lease(TorchLeases owner, TorchLeases.Entry entry, boolean cacheHit, ReleaseOutcome atAcquire) {
        this.owner = owner;
        this.entry = entry;
        this.cacheHit = cacheHit;
        this.atAcquire = atAcquire;
    }

    /** {@return true when the storage was open here already: this share's own slot was given back at once} */
    public boolean cacheHit() {
        return cacheHit;
    }

    /**
     * For a {@linkplain #cacheHit() cache hit}, what giving this share's slot back at once did ({@code RELEASED} or
     * {@code ALREADY_ZERO}; {@code PRODUCER_GONE} only when its counter file could not be mapped); else null.
     *
     * @return the outcome of that release, or null
     */
    public ReleaseOutcome releasedAtAcquire() {
        return atAcquire;
    }

    /** {@return the storage's key} */
    public TorchStorageKey key() {
        return entry.key;
    }

    /** {@return the counter file and slot held for the storage (the first share's, on a cache hit)} */
    public String counterName() {
        return entry.counterName;
    }

    /** {@return the slot held in the counter file} */
    public long slot() {
        return entry.slot;
    }

    /**
     * Gives the lease back: the storage's slot is decremented when this was its last open lease.
     *
     * @return what happened; {@link ReleaseOutcome#ALREADY_RELEASED} on every call after the first
     */
    public ReleaseOutcome release() {
        if (!released.compareAndSet(false, true)) {
            return ReleaseOutcome.ALREADY_RELEASED;
        }
        return owner.release(entry);
    }

    /** {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "torch lease of slot " + entry.slot + " of " + entry.counterName + (cacheHit ? " (cache hit)" : "")
                + (released.get() ? ", released" : "");
    }
}
