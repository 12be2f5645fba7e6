package org.cudaipc4j.coord;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * How a {@link Supervisor}'s group ended: its failures, each with its place among the group's events, and the
 * {@link Supervisor.Outcome} made of them, the root cause first. The places are handed out here, to exits as the
 * exit order reports them and to failures as the watch detects them ({@link GroupWatch}). Not thread-safe.
 */
final class FailureLog {
    private final List<Ranked> failures = new ArrayList<>();
    /** The next place to hand out. */
    private long nextRank;

    /** {@return the next place among the group's events} */
    long nextRank() {
        return nextRank++;
    }

    /** Records that member {@code index} failed for {@code reason}, at place {@code rank}. */
    void add(long rank, int index, String reason) {
        failures.add(new Ranked(rank, new Supervisor.Failure(index, reason)));
    }

    /** {@return the member whose failure has the first place, or -1 when none failed} */
    int firstFailed() {
        return failures.stream().min(Comparator.comparingLong(Ranked::rank)).map(r -> r.failure().index()).orElse(-1);
    }

    /** {@return the outcome: the failures by place, the root cause first, and each member's exit code} */
    Supervisor.Outcome outcome(ControlBlock block, List<Member> members) {
        int watched = members.stream().mapToInt(m -> m.index + 1).max().orElse(0);
        List<Integer> codes = new ArrayList<>(Collections.nCopies(watched, -1));
        for (Member m : members) {
            codes.set(m.index, m.exitCode == null ? -1 : m.exitCode);
        }
        List<Supervisor.Failure> inOrder = failures.stream().sorted(Comparator.comparingLong(Ranked::rank))
                .map(Ranked::failure).toList();
        return new Supervisor.Outcome(rootCauseFirst(block, inOrder), codes);
    }

    /**
     * A failure and its place among the group's events: an exit's is where the exit order put it (or, when the watch
     * had signalled the member, no earlier than the signal), a silent member's or a timeout's is when it was
     * detected. The outcome lists the failures by place, not by when their exit codes became known.
     */
    private record Ranked(long rank, Supervisor.Failure failure) {}

    /**
     * Siblings that leave because of an abort may exit before the process that declared the failure; put that
     * one first. It is the aborter recorded in the block, when it marked itself FAILED ({@link ChildRuntime#fail}),
     * which a process that merely noticed a dead or late sibling does not do.
     */
    private static List<Supervisor.Failure> rootCauseFirst(ControlBlock block, List<Supervisor.Failure> found) {
        if (block == null) {
            return found;
        }
        try {
            var abort = block.abortState();
            if (abort.isEmpty() || abort.get().process() < 0
                    || block.status(abort.get().process()) != ProcessStatus.FAILED) {
                return found;
            }
            int culprit = abort.get().process();
            List<Supervisor.Failure> ordered = new ArrayList<>(found);
            for (int i = 0; i < ordered.size(); i++) {
                if (ordered.get(i).index() == culprit) {
                    ordered.addFirst(ordered.remove(i));
                    break;
                }
            }
            return ordered;
        } catch (RuntimeException unmapped) {
            return found;
        }
    }
}
