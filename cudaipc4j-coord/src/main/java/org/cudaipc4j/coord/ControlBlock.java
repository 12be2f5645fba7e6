package org.cudaipc4j.coord;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.cudaipc4j.base.Libc;

/**
 * The shared block of a process group: who is in it, the barrier, the assignment, ready and abort words, and one
 * slot per process with its pid, status, heartbeat and the application's own data. It lives in a
 * {@link SharedSegment}; the parent {@linkplain #create creates} it, each child {@linkplain #open opens} it.
 *
 * <h2>Layout</h2>
 * Described once as {@link MemoryLayout}s ({@link #HEADER}, {@link #SLOT_HEADER}); offsets and var handles are taken
 * from them. Integers are native (little-endian), naturally aligned; each hot word sits alone on a 128-byte line (a
 * cache-line pair, so adjacent-line prefetch does not couple them).
 * <pre>
 *  +------------------------------------------------------------+ 0    header, written once (magic last):
 *  | magic "CIPC4JCB" | version | process count | total size    |      creator pid, run token, creation time,
 *  | creator pid | run token | created | assignment | slot data |      the assignment word, the slot data's
 *  | size | slot format | parent heartbeat                      |      size and format fingerprint; then the
 *  |                                                            |      parent's heartbeat, 0 while it has none
 *  +------------------------------------------------------------+ 128  barrier count (line alone)
 *  +------------------------------------------------------------+ 256  barrier sense (line alone)
 *  +------------------------------------------------------------+ 384  barrier sleepers (line alone)
 *  +------------------------------------------------------------+ 512  ready word (line alone)
 *  +------------------------------------------------------------+ 640  abort word, reason published, reason
 *  |                                                            |      length, reason (UTF-8, 120 bytes)
 *  +------------------------------------------------------------+ 896  slot 0, slot 1, ... slot n-1
 *
 *  slot (128-byte aligned): pid | status | heartbeat (one line), then the application's slot data, padded to a line
 * </pre>
 *
 * <p>The application supplies the format of its slot data as a {@link MemoryLayout} (IPC handles, a device's UUID,
 * whatever its processes exchange) and reads and writes it through {@link #slotData(int)} with that layout's var
 * handles. The header records the data's size and a fingerprint of the layout; {@link #open} refuses a block made
 * for another format.
 *
 * <p>Publication happens in two steps, so children can be started before the parent knows their work: the parent
 * writes the slots' data with plain stores and {@link #publishAssignment()} stores the assignment word with release
 * semantics (or {@link #dismiss()} sends the children home unused); later {@link #publishReady()} stores the ready
 * word. Children {@link #awaitAssignment} and {@link #awaitReady} with acquire reads. The abort word is claimed by
 * compare-and-set, so the first abort wins.
 *
 * <p>Validation on {@link #open}: owner uid, magic, layout version, process count, size (file size equals the size
 * computed from the header, and the header's own size field), slot format, and that the header's creator is our
 * parent. Each failure is a {@link ControlBlockException} with its own message.
 *
 * <p>Thread-safe: every method may be called from any thread of any process of the group.
 */
public final class ControlBlock implements AutoCloseable {
    /** Largest group. */
    public static final int MAX_PROCESSES = 1024;
    /** The process number to pass to {@link #abort} when the parent aborts the group. */
    public static final int PARENT = -1;
    /** Longest abort reason kept, in UTF-8 bytes; longer reasons are cut at a character boundary. */
    public static final int MAX_REASON_BYTES = 120;
    /** "CIPC4JCB" read as a little-endian long. */
    public static final long MAGIC = 0x4243_4A34_4350_4943L;
    /** The version of {@link #HEADER} and {@link #SLOT_HEADER}. */
    public static final int LAYOUT_VERSION = 4;
    /** Slot data for a group whose processes exchange nothing through their slots. */
    public static final MemoryLayout NO_SLOT_DATA = MemoryLayout.structLayout().withName("NoSlotData");
    /** The line every hot word has to itself, and the alignment of slots. */
    public static final long LINE = 128;
    /**
     * Blocks are whole pages, so that a process can register one for device access (a stream can then wait on a
     * word of it, and any process release the wait with a store).
     */
    public static final long PAGE = 4096;

    /** The block's header: the group's facts, then its hot words, each on its own line. */
    public static final StructLayout HEADER = ControlBlockLayout.HEADER;

    /** The part of every slot the block itself uses; the application's slot data follows it. */
    public static final StructLayout SLOT_HEADER = ControlBlockLayout.SLOT_HEADER;

    private final SharedSegment segment;
    private final MemorySegment mem;
    private final int processCount;
    private final long creatorPid;
    private final long runToken;
    private final MemoryLayout slotData;
    private final ControlBlockSlots slots;
    private final ControlBlockAbort aborts;
    private final ControlBlockPublication publication;

    /** A block over {@code segment}, whose header is written and valid; see {@link ControlBlockSegment}. */
    ControlBlock(SharedSegment segment, int processCount, long creatorPid, long runToken, MemoryLayout slotData) {
        this.segment = segment;
        this.mem = segment.memory();
        this.processCount = processCount;
        this.creatorPid = creatorPid;
        this.runToken = runToken;
        this.slotData = slotData;
        if (mem.address() % LINE != 0) {
            throw new ControlBlockException("control block " + segment.name() + " is mapped at 0x"
                    + Long.toHexString(mem.address()) + ", not " + LINE + "-byte aligned");
        }
        this.slots = new ControlBlockSlots(mem, segment.name(), processCount, slotData);
        this.aborts = new ControlBlockAbort(mem);
        this.publication = new ControlBlockPublication(mem, segment.name());
    }

    /**
     * {@return the size in bytes of a block for {@code processCount} processes with slot data laid out as
     * {@code slotData}}
     *
     * @param processCount the number of processes
     * @param slotData the format of each slot's application data
     */
    public static long sizeFor(int processCount, MemoryLayout slotData) {
        return ControlBlockLayout.sizeFor(processCount, slotData);
    }

    /**
     * Creates the segment and writes the header; the block is not ready until {@link #publishReady()}.
     *
     * @param processCount 1 to {@value #MAX_PROCESSES}
     * @param slotData     the format of each slot's application data (alignment at most {@value #LINE} bytes)
     * @return the new block, owned by the caller
     */
    public static ControlBlock create(int processCount, MemoryLayout slotData) {
        return ControlBlockSegment.create(() -> SharedSegment.newName(null), processCount, slotData);
    }

    /**
     * {@return a fresh block name for this process ({@link SharedSegment#newName})} A parent that starts its children
     * before it creates their block gives them this name; they {@linkplain #awaitCreated wait} for it. Another
     * process that learns the name first can take it, and {@link #create(String, int, MemoryLayout)} then fails:
     * a parent that can tell its children the name once the block exists uses {@link #create(int, MemoryLayout)}.
     */
    public static String newName() {
        return SharedSegment.newName(null);
    }

    /**
     * As {@link #create(int, MemoryLayout)}, under {@code name} from {@link #newName()}.
     *
     * @param name a name from {@link #newName()}
     * @param processCount 1 to {@value #MAX_PROCESSES}
     * @param slotData the format of each slot's application data
     * @return the new block, owned by the caller
     */
    public static ControlBlock create(String name, int processCount, MemoryLayout slotData) {
        return ControlBlockSegment.create(name, processCount, slotData);
    }

    /**
     * Child side: opens and validates the block, requiring that our parent process created it.
     *
     * @param name the block's name
     * @param slotData the format of the slots' application data the block must have been made for
     * @return the open block
     */
    public static ControlBlock open(String name, MemoryLayout slotData) {
        return open(name, slotData, true);
    }

    /**
     * Opens and validates the block.
     *
     * @param slotData               the format of the slots' application data the block must have been made for
     * @param requireParentIsCreator when true, the header's creator PID must be our parent's PID (children);
     *                               tools and tests that open a block from elsewhere pass false
     * @param name the block's name
     * @return the open block
     * @throws ControlBlockException when the segment is missing, foreign or not a valid control block
     */
    public static ControlBlock open(String name, MemoryLayout slotData, boolean requireParentIsCreator) {
        return open(name, slotData, requireParentIsCreator, Libc.getuid());
    }

    /** As {@link #open(String, MemoryLayout, boolean)}, with the uid that must own the block given (for tests). */
    static ControlBlock open(String name, MemoryLayout slotData, boolean requireParentIsCreator, long owner) {
        return ControlBlockSegment.open(name, slotData, requireParentIsCreator, owner);
    }

    /**
     * Child side, for children started before their block exists: takes the block's name from {@code name} once
     * what the open needs of no name is ready (this user's uid, which is the process's first native call, and the
     * slot format's fingerprint, both tens of milliseconds in a fresh JVM), so that a child still waiting for its
     * name pays for them meanwhile; then waits until our parent has created the block and written its header, and
     * opens it as {@link #open(String, MemoryLayout)} does.
     *
     * @param name gives the block's name, and may wait for it (for the parent's word on a pipe, say)
     * @param slotData the format of the slots' application data the block must have been made for
     * @param timeout how long to wait for the block to appear once named
     * @return the open block
     * @throws ControlBlockException when the parent is gone first, at the timeout, or when the block is invalid
     */
    public static ControlBlock awaitCreated(Supplier<String> name, MemoryLayout slotData, Duration timeout) {
        return ControlBlockSegment.awaitCreated(name, slotData, timeout);
    }

    /** {@return the block's name, which other processes open it by} */
    public String name() {
        return segment.name();
    }

    /** {@return the underlying segment (for tools and tests)} */
    public SharedSegment segment() {
        return segment;
    }

    /** {@return the number of processes in the group} */
    public int processCount() {
        return processCount;
    }

    /** {@return the pid of the process that created the block} */
    public long creatorPid() {
        return creatorPid;
    }

    /** {@return a random value chosen at creation, distinct for every run} */
    public long runToken() {
        return runToken;
    }

    /** {@return true in the process that created the block} */
    public boolean isCreator() {
        return segment.isCreator();
    }

    /** {@return the format of each slot's application data} */
    public MemoryLayout slotDataLayout() {
        return slotData;
    }

    /**
     * {@return the application's data of slot {@code process}: a slice of the shared memory laid out as
     * {@link #slotDataLayout()}, zeroed at creation; read and write it with that layout's var handles (base offset
     * 0)} Valid until {@link #close()}.
     *
     * @param process the slot's index
     */
    public MemorySegment slotData(int process) {
        return slots.slotData(process);
    }

    /**
     * Records {@code pid} in slot {@code process}.
     *
     * @param process the slot's index
     * @param pid the pid of the process that took the slot
     */
    public void setPid(int process, long pid) {
        slots.setPid(process, pid);
    }

    /**
     * {@return the pid recorded by {@code process} when it joined; 0 before}
     *
     * @param process the slot's index
     */
    public long pid(int process) {
        return slots.pid(process);
    }

    /**
     * Claims slot {@code process} for {@code pid}: succeeds when the slot is free, already ours, or held by a pid
     * that is no longer alive.
     *
     * @throws CoordinationException when a live process holds the slot
     */
    void claimSlot(int process, long pid) {
        slots.claimSlot(process, pid);
    }

    /**
     * Records the status of {@code process} (a release write).
     *
     * @param process the slot's index
     * @param status the new status
     */
    public void setStatus(int process, ProcessStatus status) {
        slots.setStatus(process, status);
    }

    /**
     * {@return the status of {@code process} (an acquire read)}
     *
     * @param process the slot's index
     */
    public ProcessStatus status(int process) {
        return slots.status(process);
    }

    /**
     * Records that {@code process} is alive now (wall-clock millis).
     *
     * @param process the slot's index
     */
    public void heartbeat(int process) {
        slots.heartbeat(process);
    }

    /**
     * {@return the wall-clock millis of the last {@link #heartbeat}; 0 if none yet}
     *
     * @param process the slot's index
     */
    public long lastHeartbeatMillis(int process) {
        return slots.lastHeartbeatMillis(process);
    }

    /** Records that the parent is alive and watching its children now (wall-clock millis); see {@link Supervisor}. */
    void parentHeartbeat() {
        ControlBlockLayout.PARENT_HEARTBEAT.setRelease(mem, 0L, System.currentTimeMillis());
    }

    /**
     * {@return the wall-clock millis of the parent's last heartbeat, of {@code process}'s for a slot; 0 if none yet}
     *
     * @param process the slot's index, or {@link #PARENT}
     */
    long lastHeartbeatOf(int process) {
        return process == PARENT ? (long) ControlBlockLayout.PARENT_HEARTBEAT.getAcquire(mem, 0L)
                : slots.lastHeartbeatMillis(process);
    }

    /**
     * Parent: call after every slot's data is written; children waiting in {@link #awaitAssignment} proceed to
     * set up. Call it at most once, and not after {@link #dismiss()}.
     */
    public void publishAssignment() {
        publication.publishAssignment();
    }

    /**
     * Parent: the children started for this block are not needed after all (the group turned out to have another
     * size, or the run cannot go on); each leaves quietly from {@link #awaitAssignment}, which returns false.
     * Has no effect once the assignment is published.
     */
    public void dismiss() {
        publication.dismiss();
    }

    /**
     * Child: waits until the parent publishes the assignment ({@link #publishAssignment()}) or dismisses the group.
     *
     * @param timeout how long to wait
     * @return true when assigned, false when dismissed
     * @throws CoordinationException on timeout, when the group is aborted, or when the creator process died or
     *     stopped responding
     */
    public boolean awaitAssignment(Duration timeout) {
        ControlBlockPublication.awaitParent(this, timeout, "assignment", publication::assignmentDecided);
        return publication.isAssigned();
    }

    /** Parent: call after everything the children need is written; children waiting in {@link #awaitReady} proceed. */
    public void publishReady() {
        publication.publishReady();
    }

    /** {@return true once the parent has published that the children may go on ({@link #publishReady()})} */
    public boolean isReady() {
        return publication.isReady();
    }

    /**
     * Child: waits until the parent {@linkplain #publishReady() publishes} what the children need, idling without
     * burning a core.
     *
     * @param what what the parent publishes, for the messages ("handles")
     * @param timeout how long to wait
     * @throws CoordinationException on timeout, when the group is aborted, or when the creator process died or
     *     stopped responding
     */
    public void awaitReady(Duration timeout, String what) {
        ControlBlockPublication.awaitParent(this, timeout, what, this::isReady);
    }

    /**
     * Aborts the group: the first call wins (compare-and-set); later calls keep the first reason. Barriers and
     * waits for the parent in every process notice it and throw.
     *
     * @param process the aborting process, or {@link #PARENT}
     * @param reason  one line; cut to {@value #MAX_REASON_BYTES} UTF-8 bytes
     */
    public void abort(int process, String reason) {
        if (process != PARENT) {
            slots.checkProcess(process);
        }
        aborts.abort(process, reason);
    }

    /**
     * Runs {@code action} in this process whenever this process calls {@link #abort}, whether its abort or an
     * earlier one wins: the place to release what other processes might wait for (words a device polls). Actions
     * must be quick, must not throw, and may run more than once.
     *
     * @param action what to run on abort
     */
    public void onAbort(Runnable action) {
        aborts.onAbort(action);
    }

    /** {@return true once any process aborted the group (one acquire read)} */
    public boolean isAborted() {
        return aborts.isAborted();
    }

    /** {@return the first abort, if any} */
    public Optional<Abort> abortState() {
        return aborts.abortState();
    }

    /** "aborted by process 3: reason" or "aborted by the parent: reason"; "not aborted" when not. */
    String describeAbort() {
        return aborts.describeAbort();
    }

    /**
     * {@return a barrier participant for process {@code index} over processes 0 to {@code processCount()-1}; each await
     * waits at most {@code timeout}}
     *
     * @param index the participant's process index
     * @param timeout the longest each await waits
     */
    public Barrier barrier(int index, Duration timeout) {
        slots.checkProcess(index);
        return new Barrier(this, index, timeout);
    }

    /**
     * Removes the block's file and keeps its mapping (creator only): once every child has joined, nobody needs the
     * name, and a creator killed afterwards leaves no file. Idempotent.
     *
     * @throws IllegalStateException in a process that did not create the block
     */
    public void removeName() {
        if (!segment.isCreator()) {
            throw new IllegalStateException("only the creator of " + name() + " removes its name");
        }
        segment.unlink();
    }

    /** Unmaps the block; the creator also unlinks it. Idempotent. */
    @Override
    public void close() {
        segment.close();
    }

    MemorySegment memory() {
        return mem;
    }

    /** The 4-byte word at {@code offset} for the kernel (futex), as {@link ControlBlockLayout#word}. */
    MemorySegment word(long offset) {
        return ControlBlockLayout.word(mem, offset);
    }

    /** Every hot word alone on its line, and slots line-aligned: the layouts must keep these. */
    static void checkLayout() {
        ControlBlockLayout.checkLayout();
    }

    /**
     * The first abort of the group.
     *
     * @param process the aborting process, or {@link #PARENT}
     * @param reason  what it said
     */
    public record Abort(int process, String reason) {
        /**
         * "aborted by process 3: reason" or "aborted by the parent: reason".
         *
         * @return {@code "aborted by process 3: reason"} or {@code "aborted by the parent: reason"}
         */
        public String describe() {
            return (process == PARENT ? "aborted by the parent" : "aborted by process " + process) + ": " + reason;
        }
    }
}
