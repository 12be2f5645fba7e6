package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The members of one {@link Supervisor}'s group and the watch over them until all have exited ({@link #await}):
 * their exits recorded in the order they happened ({@link ExitOrder}), their heartbeats judged in every wait
 * ({@link #await}, {@link #awaitReleased}; see {@link HeartbeatWatch}), and after the first failure the group
 * aborted, the grace period given, then SIGTERM and SIGKILL. What failed is kept in a {@link FailureLog}.
 *
 * <p>Not thread-safe, except {@link #killAll}, {@link #waitForExit}, {@link #joinPumps} and {@link #close}, which
 * the supervisor's {@code close()} and shutdown hook call from other threads.
 */
final class GroupWatch {
    private static final long POLL_MILLIS = 20;
    static final Duration TERM_TO_KILL = Duration.ofSeconds(1);
    static final Duration REAP_WAIT = Duration.ofSeconds(2);
    static final Duration OUTPUT_DRAIN = Duration.ofSeconds(1);

    private final Supervisor.Options options;
    private final List<Member> members = new ArrayList<>();
    /** Released on every exit the JVM reports: wakes {@link #await} early. */
    private final Semaphore exits = new Semaphore(0);
    /** The failures as recorded, each with its place among the group's events. */
    private final FailureLog failures = new FailureLog();
    /** Made with the first member, so that a group with none holds no descriptor. */
    private ExitOrder exitOrder;
    /** Made at the first wait that judges heartbeats, and kept from one wait to the next. */
    private HeartbeatWatch heartbeats;

    GroupWatch(Supervisor.Options options) {
        this.options = options;
    }

    /** The members, in the order they were added. */
    List<Member> members() {
        return members;
    }

    /** Watches {@code member} from now on; call it right after its start (see {@link ExitOrder#register}). */
    synchronized void add(Member member) {
        if (exitOrder == null) {
            exitOrder = ExitOrder.open();
        }
        members.add(member);
        exitOrder.register(member.index, member.process, member.handle);
        member.onExit().thenRun(exits::release);
    }

    /** Closes the exit order's descriptors; exits after this are still recorded (from the JVM). Idempotent. */
    synchronized void close() {
        if (exitOrder != null) {
            exitOrder.close();
        }
    }

    /** The descriptors the exit order holds open (for leak checks). */
    synchronized List<Integer> descriptors() {
        return exitOrder == null ? List.of() : exitOrder.descriptors();
    }

    /**
     * Waits for every member to exit (calling it again returns the same outcome). On the first failure (non-zero
     * exit, death by signal, a member that stopped responding) it aborts the group, lets the others run for the grace
     * period, then terminates them. Returns by the deadline plus the time to reap killed members; members still
     * running then are killed and fail with a reason that names the deadline's limit. Exits are recorded in the order
     * they happened ({@link ExitOrder}), whenever this is called. Without a {@code block} (null) only the exits count.
     */
    Supervisor.Outcome await(ControlBlock block, Deadline deadline) {
        long start = System.nanoTime();
        Ending ending = new Ending(failures.firstFailed(), start);
        while (true) {
            long now = System.nanoTime();
            recordExits(block, ending, now);
            if (members.stream().allMatch(m -> m.exitCode != null)) {
                break;
            }
            int silent = failSilent(block, now);
            if (silent >= 0 && ending.firstFailed < 0) {
                ending.firstFailed = silent;
                ending.failedAt = now;
            }
            if (deadline.hasPassed()) {
                expire(block, deadline);
                break;
            }
            escalate(ending, now);
            try {
                if (exits.tryAcquire(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    exits.drainPermits();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abortQuietly(block, "the parent was interrupted");
                killAll();
                reapAll(block);
                throw new CoordinationException("interrupted while waiting for the group; all were killed");
            }
        }
        // The members' last lines come before whatever the caller prints about the outcome.
        joinPumps(OUTPUT_DRAIN);
        return failures.outcome(block, members);
    }

    /** Where one {@link #await} stands in ending a failed group. */
    private static final class Ending {
        int firstFailed;
        long failedAt;
        long termSentAt;
        boolean killSent;

        Ending(int firstFailed, long now) {
            this.firstFailed = firstFailed;
            this.failedAt = now;
        }
    }

    /**
     * Gives each exit the exit order reported its place, then records those whose exit codes are known (the JVM
     * has reaped them), first place first. A member reported but not reaped yet is recorded on a later call, in its
     * place.
     */
    private void recordExits(ControlBlock block, Ending ending, long now) {
        // Where the order is the kernel's, a pidfd is ready before the JVM can reap its process, so the drain below
        // reports every member reaped by now; what it does not is a member whose order was closed (close() from
        // another thread). (The JVM's order may report a member a moment after its reaping: it is placed then.)
        List<Member> reaped = new ArrayList<>();
        for (Member m : members) {
            if (m.exitRank < 0 && !m.isAlive()) {
                reaped.add(m);
            }
        }
        for (int index : exitOrder.drain()) {
            for (Member m : members) {
                if (m.index == index && m.exitRank < 0) {
                    m.exitRank = failures.nextRank();
                }
            }
        }
        if (exitOrder.kernelOrdered()) {
            for (Member m : reaped) {
                if (m.exitRank < 0) {
                    m.exitRank = failures.nextRank();
                }
            }
        }
        members.stream().filter(m -> m.exitRank >= 0 && m.exitCode == null && !m.awaitsReaping())
                .sorted(Comparator.comparingLong(m -> m.exitRank))
                .forEach(m -> recordExit(m, block, ending, now));
    }

    private void recordExit(Member m, ControlBlock block, Ending ending, long now) {
        m.exitCode = m.exitCode(block);
        if (m.exitCode == 0 || m.failureRecorded) {
            return;
        }
        String reason = m.cause != null ? m.cause + " (" + m.describeExit(block) + ")" : m.describeExit(block);
        failures.add(Math.max(m.exitRank, m.signalledRank), m.index, reason);
        m.failureRecorded = true;
        if (ending.firstFailed < 0) {
            ending.firstFailed = m.index;
            ending.failedAt = now;
            abortQuietly(block, "process " + m.index + " failed (" + reason + ")");
        }
    }

    /**
     * Kills and fails each member that stopped responding ({@link HeartbeatWatch}), and aborts the group for the
     * first; returns its index, or -1 when none did. A look after this process itself was stopped blames nobody.
     */
    private int failSilent(ControlBlock block, long now) {
        if (block == null) {
            return -1; // members without a block have no heartbeat
        }
        if (heartbeats == null) {
            heartbeats = new HeartbeatWatch(block, options.heartbeatTimeout());
        }
        if (!heartbeats.look(now)) {
            return -1;
        }
        int first = -1;
        for (Member m : members) {
            if (m.exitRank >= 0 || m.failureRecorded || !m.isAlive()) {
                continue; // exited (or failed) already
            }
            Duration silence = heartbeats.silence(m.index);
            if (silence != null && !HeartbeatWatch.finishing(block.status(m.index))) {
                String reason = HeartbeatWatch.stoppedResponding(silence);
                failures.add(failures.nextRank(), m.index, reason);
                m.failureRecorded = true;
                signal(m, true); // SIGKILL: the one signal a stopped process does not hold until it runs again
                abortQuietly(block, "process " + m.index + " failed (" + reason + ")");
                first = first < 0 ? m.index : first;
            }
        }
        return first;
    }

    /**
     * Waits until every member has released what it opened (status RELEASED or DONE, or it exited 0); false at once
     * when one fails (status FAILED, a non-zero exit, silence, an abort of the group) and at the deadline. A member
     * that stopped responding is failed and killed here as {@link #await} does.
     */
    boolean awaitReleased(ControlBlock block, Deadline deadline) {
        IdleStrategy idle = IdleStrategy.forLongWait();
        long nextLook = System.nanoTime();
        while (true) {
            boolean all = true;
            for (Member m : members) {
                ProcessStatus s = block.status(m.index);
                if (s == ProcessStatus.FAILED) {
                    return false;
                }
                if (s == ProcessStatus.RELEASED || s == ProcessStatus.DONE) {
                    continue;
                }
                if (!m.isAlive()) {
                    if (m.exitCode(block) != 0) {
                        return false;
                    }
                    continue;
                }
                all = false;
            }
            if (all) {
                return true;
            }
            if (block.isAborted() || deadline.hasPassed()) {
                return false;
            }
            long now = System.nanoTime();
            if (now - nextLook >= 0) {
                nextLook = now + TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS);
                if (failSilent(block, now) >= 0) {
                    return false;
                }
            }
            idle.idle();
        }
    }

    /** The deadline passed: aborts the group, fails and kills whoever still runs, and reaps them. */
    private void expire(ControlBlock block, Deadline deadline) {
        abortQuietly(block, deadline.timedOut("the group to finish"));
        for (Member m : members) {
            if (m.exitCode == null && m.isAlive()) {
                if (!m.failureRecorded) {
                    String status = block == null ? "" : " (its status was " + block.status(m.index) + ")";
                    failures.add(failures.nextRank(), m.index, deadline.timedOut("it to finish" + status));
                    m.failureRecorded = true;
                }
                signal(m, true);
            }
        }
        reapAll(block);
    }

    /** After a failure: SIGTERM to the others once the grace period is over, SIGKILL a second later. */
    private void escalate(Ending ending, long now) {
        if (ending.firstFailed >= 0 && ending.termSentAt == 0
                && now - ending.failedAt >= options.gracePeriod().toNanos()) {
            ending.termSentAt = now;
            for (Member m : members) {
                if (m.exitRank < 0 && m.isAlive() && m.cause == null) {
                    m.cause = "terminated after process " + ending.firstFailed + " failed";
                    signal(m, false);
                }
            }
        }
        if (ending.termSentAt != 0 && !ending.killSent && now - ending.termSentAt >= TERM_TO_KILL.toNanos()) {
            ending.killSent = true;
            for (Member m : members) {
                if (m.exitRank < 0 && m.isAlive()) {
                    signal(m, true);
                }
            }
        }
    }

    /**
     * SIGKILL ({@code kill}) or SIGTERM to {@code m}, whose exit then counts no earlier than now: a member that
     * exits because it was ended is never placed before the failure that ended it.
     */
    private void signal(Member m, boolean kill) {
        if (m.signalledRank < 0) {
            m.signalledRank = failures.nextRank();
        }
        if (kill) {
            m.kill();
        } else {
            m.handle.destroy();
        }
    }
    /** Aborts the group in {@code block} (null: there is none yet) as the parent, where it is still mapped. */
    static void abortQuietly(ControlBlock block, String reason) {
        if (block == null) {
            return; // members that wait for the block are killed; there is nobody to tell
        }
        try {
            block.abort(ControlBlock.PARENT, reason);
        } catch (RuntimeException e) {
            // The block is already unmapped (shutdown path); the members are being killed anyway.
        }
    }

    /** SIGKILL to every member still running and its descendants. */
    void killAll() {
        for (Member m : members) {
            if (m.isAlive()) {
                m.kill();
            }
        }
    }

    /** After a kill: wait for the exits and record the codes; a member that cannot be reaped keeps null. */
    private void reapAll(ControlBlock block) {
        waitForExit(REAP_WAIT);
        recordExits(block, new Ending(failures.firstFailed(), System.nanoTime()), System.nanoTime());
    }

    /** Waits (bounded: a grandchild may hold a pipe open) until the output of exited members is copied. */
    void joinPumps(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Member m : members) {
            for (OutputPump p : m.pumps) {
                if (!p.join(Duration.ofNanos(deadline - System.nanoTime()))) {
                    return;
                }
            }
        }
    }

    /** Waits up to {@code limit} for every member to exit. */
    void waitForExit(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Member m : members) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                m.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                return;
            }
        }
    }
}
