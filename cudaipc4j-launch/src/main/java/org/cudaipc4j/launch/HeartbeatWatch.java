package org.cudaipc4j.launch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which watched ranks have been silent for longer than the limit. Times are {@link System#nanoTime()}-style
 * readings passed in by the caller, so the logic can be tested with any clock. Not thread-safe: its owner locks.
 */
final class HeartbeatWatch {
    /** A rank found silent, and for how long. */
    record Silent(int rank, long silentNanos) {}

    private final long limitNanos;
    private final Map<Integer, Long> lastHeard = new LinkedHashMap<>();
    private boolean checkedBefore;
    private long checked;

    HeartbeatWatch(long limitNanos) {
        if (limitNanos <= 0) {
            throw new IllegalArgumentException("silence limit must be positive: " + limitNanos + " ns");
        }
        this.limitNanos = limitNanos;
    }

    /** Starts watching {@code rank}, counting its silence from {@code now}; the watcher's checks count from then. */
    void watch(int rank, long now) {
        lastHeard.put(rank, now);
        if (!checkedBefore) {
            checkedBefore = true;
            checked = now;
        }
    }

    /** Something came from {@code rank} at {@code now}; ignored for a rank not watched (any more). */
    void heard(int rank, long now) {
        lastHeard.computeIfPresent(rank, (r, t) -> now - t > 0 ? now : t);
    }

    /** Stops watching {@code rank} (it left, died or was reported). */
    void forget(int rank) {
        lastHeard.remove(rank);
    }

    /**
     * The watcher's periodic check: {@link #overdue}, unless it comes more than half the limit after the last one.
     * Then the watcher itself was stopped or starved meanwhile, and what the others sent then waits unread (a goodbye
     * among it, perhaps): it finds none, and every silence counts from {@code now} again, so that what arrived is
     * read before anyone is blamed.
     */
    List<Silent> check(long now) {
        boolean stalled = checkedBefore && now - checked > limitNanos / 2;
        checkedBefore = true;
        checked = now;
        if (stalled) {
            lastHeard.replaceAll((rank, t) -> now);
            return List.of();
        }
        return overdue(now);
    }

    /**
     * The watched ranks silent for longer than the limit at {@code now}, in the order they were watched; each is
     * reported once (it is no longer watched afterwards).
     */
    List<Silent> overdue(long now) {
        List<Silent> found = new ArrayList<>();
        for (var e : lastHeard.entrySet()) {
            long silent = now - e.getValue();
            if (silent > limitNanos) {
                found.add(new Silent(e.getKey(), silent));
            }
        }
        found.forEach(s -> lastHeard.remove(s.rank()));
        return found;
    }
}
