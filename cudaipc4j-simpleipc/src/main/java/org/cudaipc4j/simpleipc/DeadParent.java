package org.cudaipc4j.simpleipc;

import java.time.Duration;
import org.cudaipc4j.coord.ParentWatch;
import org.cudaipc4j.coord.SharedSegment;

/**
 * What a child does once its parent is gone. A parent killed by SIGKILL removes nothing: its children, the group's
 * survivors, remove what the group still has under a name, the dead parent's files in the shared-memory folder (the
 * control block, the host backend's exports, the descriptor socket's folder) and its phase-log folder. The rules
 * are those of the next run's sweep, which never touch a live process's files nor another user's ({@link
 * SharedSegment#reapStale}, {@link TempLeftovers}); every sibling applies them, and finds gone what another removed.
 */
final class DeadParent {
    private DeadParent() {}

    /**
     * Removes the named leftovers of ended processes of this user, once {@code /proc} agrees that the parent has
     * ended (the sweeps judge by it); nothing here throws.
     *
     * @param parent the dead parent's pid
     */
    static void removeWhatItNamed(long parent) {
        ParentWatch.awaitEnded(parent, Duration.ofSeconds(2));
        try {
            SharedSegment.reapStale();
        } catch (RuntimeException e) {
            // Leaving anyway: the next run's parent reaps them.
        }
        TempLeftovers.sweepPhaseFolders();
    }
}
