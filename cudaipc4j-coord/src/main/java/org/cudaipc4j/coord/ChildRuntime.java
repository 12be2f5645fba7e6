package org.cudaipc4j.coord;

import java.lang.foreign.MemoryLayout;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.cudaipc4j.base.Closing;

/**
 * A child process's membership in its group: opens the {@link ControlBlock} (checking that our parent created it),
 * claims slot {@code index}, and runs a daemon watchdog that heartbeats every {@value #HEARTBEAT_MILLIS} ms and
 * ends this JVM ({@code Runtime.halt(1)}) within a few hundred milliseconds of the parent process disappearing
 * (our parent pid changed, or the parent is no longer alive), after removing what the dead parent left in shared
 * memory ({@link SharedSegment#reapStale}) and running {@link #onParentGone} actions. The watchdog, not
 * {@code PR_SET_PDEATHSIG}, is the mechanism: the latter fires on the death of the spawning thread, not of the
 * parent process.
 *
 * <pre>{@code
 * try (ChildRuntime rt = ChildRuntime.join(segmentName, SLOT_DATA, index)) {
 *     rt.block().awaitReady(timeout, "handles");
 *     Barrier barrier = rt.block().barrier(rt.index(), timeout);
 *     ...
 * } // status DONE (unless failed), watchdog stopped, block unmapped
 * }</pre>
 */
public final class ChildRuntime implements AutoCloseable {
    /** Heartbeat and parent-check period. */
    public static final long HEARTBEAT_MILLIS = 100;
    /** How long a child leaving after its parent waits for /proc to count the parent as ended. */
    private static final Duration PROC_AGREES = Duration.ofSeconds(2);

    private final ControlBlock block;
    private final int index;
    private final long parentPid;
    private final Thread watchdog;
    private volatile boolean stopping;
    private volatile boolean failed;
    private final java.util.List<Runnable> parentGoneActions = new java.util.concurrent.CopyOnWriteArrayList<>();
    private boolean closed;
    /** Guards {@link #leftAfterTheParent}: not {@code this}, which {@link #close} holds while it joins the watchdog. */
    private final Object leaving = new Object();
    /** Whether this member left after its dead parent ({@link #leaveIfParentGone}). */
    private boolean leftAfterTheParent;

    /** The groups this process joined, for the one shutdown hook ({@link #leaveWithTheProcess}). */
    private static final Queue<ChildRuntime> JOINED = new ConcurrentLinkedQueue<>();
    /** Whether this process's shutdown hook is registered; guarded by {@code JOINED}. */
    private static boolean hookRegistered;

    private ChildRuntime(ControlBlock block, int index) {
        this.block = block;
        this.index = index;
        this.parentPid = block.creatorPid();
        this.watchdog = Thread.ofPlatform().daemon().name("cudaipc4j-watchdog").priority(Thread.MAX_PRIORITY)
                .unstarted(new Watchdog(this));
    }

    /**
     * Joins the group: opens and validates the block (it must have been created by our parent), claims slot
     * {@code index} (pid, status {@link ProcessStatus#STARTING}, first heartbeat) and starts the watchdog.
     *
     * @param segmentName the control block's name, as the parent passed it
     * @param slotData the format of the slots' application data
     * @param index this process's slot
     * @return the runtime; close it to stop the watchdog and close the block
     * @throws ControlBlockException when the block is missing, invalid or not our parent's
     * @throws CoordinationException when the index is out of range or the slot is held by a live process
     */
    public static ChildRuntime join(String segmentName, MemoryLayout slotData, int index) {
        return join(ControlBlock.open(segmentName, slotData), index);
    }

    /**
     * As {@link #join(String, MemoryLayout, int)} for a child started before its block: takes the block's name from
     * {@code segmentName} once what the open needs of no name is ready, waits up to {@code createdWithin} for the
     * parent to create it ({@link ControlBlock#awaitCreated}), and fails at once if the parent dies first.
     *
     * @param segmentName gives the control block's name as the parent passes it, and may wait for it
     * @param slotData the format of the slots' application data
     * @param index this process's slot
     * @param createdWithin how long to wait for the parent to create the block once named
     * @return the runtime; close it to stop the watchdog and close the block
     */
    public static ChildRuntime join(Supplier<String> segmentName, MemoryLayout slotData, int index,
            Duration createdWithin) {
        return join(ControlBlock.awaitCreated(segmentName, slotData, createdWithin), index);
    }

    private static ChildRuntime join(ControlBlock block, int index) {
        String segmentName = block.name();
        try {
            if (index < 0 || index >= block.processCount()) {
                throw new CoordinationException("process index " + index + " is out of range 0.."
                        + (block.processCount() - 1) + " of control block " + segmentName);
            }
            block.claimSlot(index, Pids.self());
            block.setStatus(index, ProcessStatus.STARTING);
            block.heartbeat(index);
            ChildRuntime rt = new ChildRuntime(block, index);
            leaveWithTheProcess(rt);
            rt.watchdog.start();
            return rt;
        } catch (RuntimeException e) {
            Closing.closeAfter(block, e);
            throw e;
        }
    }

    /** {@return the pid of the group's parent (the control block's creator)} */
    public long parentPid() {
        return parentPid;
    }

    /**
     * Runs {@code action} on the watchdog thread when the parent is found gone, before the group is aborted and
     * this JVM halts: the last chance to clean up what the dead parent (or this process) leaves.
     *
     * @param action what to run; it must be quick and must not throw
     */
    public void onParentGone(Runnable action) {
        parentGoneActions.add(java.util.Objects.requireNonNull(action, "action"));
    }

    /** {@return the group's control block} */
    public ControlBlock block() {
        return block;
    }

    /** {@return this process's slot index} */
    public int index() {
        return index;
    }

    /**
     * Records this process's status in its slot.
     *
     * @param status the new status
     */
    public void setStatus(ProcessStatus status) {
        block.setStatus(index, status);
    }

    /**
     * When the parent is gone, leaves as a child must after it: says so in one line on standard error ({@code
     * cudaipc4j: process N: the parent (pid P) is gone; exiting}), removes what the dead parent named, runs the
     * {@link #onParentGone} actions and aborts the group. The same line and the same clean-up however the death was
     * found first (the watchdog, a wait of the main thread, the shutdown hook), once; a second caller returns when
     * the first has finished, so that neither halts the process in the middle of the other's clean-up.
     *
     * @return true when the parent is gone (this member has left), false while it lives
     */
    public boolean leaveIfParentGone() {
        synchronized (leaving) {
            if (leftAfterTheParent) {
                return true;
            }
            if (!ParentWatch.gone(parentPid)) {
                return false;
            }
            leftAfterTheParent = true;
            System.err.println("cudaipc4j: process " + index + ": the parent (pid " + parentPid
                    + ") is gone; exiting");
            System.err.flush();
            leaveAfterTheParent();
            return true;
        }
    }

    /**
     * Marks this process FAILED and aborts the group with {@code reason} (the first abort wins).
     *
     * @param reason why, for the abort's message
     */
    public void fail(String reason) {
        failed = true;
        block.setStatus(index, ProcessStatus.FAILED);
        block.abort(index, reason);
    }

    /** Stops the watchdog, sets status DONE unless {@link #fail} was called, and unmaps the block. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        RuntimeException failure = null;
        try {
            watchdog.interrupt();
            watchdog.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (!failed) {
                block.setStatus(index, ProcessStatus.DONE);
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            block.close();
        } catch (RuntimeException e) {
            failure = Closing.firstOf(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * What a child that finds its parent dead does before it halts. The clean-up comes before the abort: the abort
     * releases this process's own waits too, and its main thread may then end the process at once ({@code _exit}),
     * which no shutdown hook could hold back. So the first abort of the group comes after one whole clean-up.
     */
    private void leaveAfterTheParent() {
        // The dead parent cannot remove its control block (or socket folder): the first child to leave does. Its
        // own block by name first: the sweep judges the parent by /proc, where a process whose exit the watch has
        // seen may still count as running for a moment (a zombie whose threads are still ending).
        try {
            block.segment().unlink();
        } catch (RuntimeException e) {
            // Gone already, or not ours to remove: the sweep below and the next run's parent look again.
        }
        ParentWatch.awaitEnded(parentPid, PROC_AGREES);
        try {
            SharedSegment.reapStale();
        } catch (RuntimeException e) {
            // Leaving anyway; the next run's parent reaps them.
        }
        for (Runnable action : parentGoneActions) {
            try {
                action.run();
            } catch (RuntimeException ignored) {
                // Leaving anyway.
            }
        }
        // Siblings and devices that wait for this group hear of it now (abort listeners release them); the block's
        // mapping outlives its file.
        try {
            block.abort(index, "the parent (pid " + parentPid + ") is gone");
        } catch (RuntimeException unmapped) {
            // Leaving anyway.
        }
    }

    /**
     * Lets {@code rt} leave with this process. A process that ends on its own after its parent died (a wait that saw
     * the group end first, then closed its runtime) leaves as the watchdog would have left: the dead parent's names
     * go with the first child out. One hook per process serves every group it joined, before or after its close: a
     * process that joins many times holds one small entry per join, not a thread each.
     *
     * @throws IllegalStateException when this JVM is already shutting down
     */
    private static void leaveWithTheProcess(ChildRuntime rt) {
        synchronized (JOINED) {
            if (!hookRegistered) {
                Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("cudaipc4j-leave")
                        .unstarted(new LeaveHook()));
                hookRegistered = true;
            }
            JOINED.add(rt);
        }
    }

    // The watchdog's and the hook's tasks are classes, not lambdas: a child makes them on its way to its first step,
    // where each lambda of its own costs it milliseconds of linking (the start-up cache is trained on a parent).
    private static final class Watchdog implements Runnable {
        private final ChildRuntime runtime;

        Watchdog(ChildRuntime runtime) {
            this.runtime = runtime;
        }

        @Override
        public void run() {
            runtime.watch();
        }
    }

    private static final class LeaveHook implements Runnable {
        @Override
        public void run() {
            leaveIfTheParentsAreGone();
        }
    }

    private static void leaveIfTheParentsAreGone() {
        for (ChildRuntime rt : JOINED) {
            rt.leaveIfParentGone();
        }
    }

    private void watch() {
        IdleStrategy idle = IdleStrategy.periodic(Duration.ofMillis(HEARTBEAT_MILLIS));
        while (!stopping) {
            if (leaveIfParentGone()) {
                Runtime.getRuntime().halt(1);
            }
            try {
                block.heartbeat(index);
            } catch (IllegalStateException unmapped) {
                return;
            }
            idle.idle();
        }
    }
}
