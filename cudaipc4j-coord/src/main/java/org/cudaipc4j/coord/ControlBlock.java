package org.cudaipc4j.coord;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.cudaipc4j.coord.internal.Libc;

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
 *  | size | slot format                                         |      size and format fingerprint
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
    public static final int LAYOUT_VERSION = 3;
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
    public static final StructLayout HEADER = MemoryLayout.structLayout(
            JAVA_LONG.withName("magic"),
            JAVA_INT.withName("version"),
            JAVA_INT.withName("processCount"),
            JAVA_LONG.withName("totalSize"),
            JAVA_LONG.withName("creatorPid"),
            JAVA_LONG.withName("runToken"),
            JAVA_LONG.withName("createdMillis"),
            JAVA_INT.withName("assignment"),
            JAVA_INT.withName("slotDataSize"),
            JAVA_LONG.withName("slotFormat"),
            MemoryLayout.paddingLayout(LINE - 64),
            JAVA_INT.withName("barrierCount"), MemoryLayout.paddingLayout(LINE - 4),
            JAVA_INT.withName("barrierSense"), MemoryLayout.paddingLayout(LINE - 4),
            JAVA_INT.withName("barrierSleepers"), MemoryLayout.paddingLayout(LINE - 4),
            JAVA_LONG.withName("ready"), MemoryLayout.paddingLayout(LINE - 8),
            JAVA_INT.withName("abortWord"),
            JAVA_INT.withName("abortReasonReady"),
            JAVA_INT.withName("abortReasonLength"),
            MemoryLayout.sequenceLayout(MAX_REASON_BYTES, JAVA_BYTE).withName("abortReason"),
            MemoryLayout.paddingLayout(2 * LINE - 12 - MAX_REASON_BYTES)).withName("ControlBlockHeader");

    /** The part of every slot the block itself uses; the application's slot data follows it. */
    public static final StructLayout SLOT_HEADER = MemoryLayout.structLayout(
            JAVA_LONG.withName("pid"),
            JAVA_INT.withName("status"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("heartbeat"),
            MemoryLayout.paddingLayout(LINE - 24)).withName("ControlBlockSlotHeader");

    private static final VarHandle MAGIC_WORD = header("magic");
    private static final VarHandle VERSION = header("version");
    private static final VarHandle PROCESS_COUNT = header("processCount");
    private static final VarHandle TOTAL_SIZE = header("totalSize");
    private static final VarHandle CREATOR_PID = header("creatorPid");
    private static final VarHandle RUN_TOKEN = header("runToken");
    private static final VarHandle CREATED_MILLIS = header("createdMillis");
    private static final VarHandle ASSIGNMENT = header("assignment");
    private static final VarHandle SLOT_DATA_SIZE = header("slotDataSize");
    private static final VarHandle SLOT_FORMAT = header("slotFormat");
    static final VarHandle BARRIER_COUNT = header("barrierCount");
    static final VarHandle BARRIER_SENSE = header("barrierSense");
    static final VarHandle BARRIER_SLEEPERS = header("barrierSleepers");
    private static final VarHandle READY_WORD = header("ready");
    private static final VarHandle ABORT_WORD = header("abortWord");
    private static final VarHandle ABORT_REASON_READY = header("abortReasonReady");
    private static final VarHandle ABORT_REASON_LENGTH = header("abortReasonLength");
    private static final long ABORT_REASON_OFFSET = HEADER.byteOffset(groupElement("abortReason"));
    static final long BARRIER_SENSE_OFFSET = HEADER.byteOffset(groupElement("barrierSense"));
    private static final VarHandle SLOT_PID = SLOT_HEADER.varHandle(groupElement("pid"));
    private static final VarHandle SLOT_STATUS = SLOT_HEADER.varHandle(groupElement("status"));
    private static final VarHandle SLOT_HEARTBEAT = SLOT_HEADER.varHandle(groupElement("heartbeat"));

    private static final long READY = 1;
    private static final int ASSIGNED = 1;
    private static final int DISMISSED = 2;
    private static final long CHECK_EVERY_NANOS = 50_000_000L;

    static {
        checkLayout();
    }

    private final SharedSegment segment;
    private final MemorySegment mem;
    private final int processCount;
    private final long creatorPid;
    private final long runToken;
    private final MemoryLayout slotData;
    private final long slotSize;
    /** What this process runs when the group is aborted through {@link #abort}; guarded by itself. */
    private final java.util.List<Runnable> abortListeners = new java.util.ArrayList<>();

    private ControlBlock(SharedSegment segment, int processCount, long creatorPid, long runToken,
            MemoryLayout slotData) {
        this.segment = segment;
        this.mem = segment.memory();
        this.processCount = processCount;
        this.creatorPid = creatorPid;
        this.runToken = runToken;
        this.slotData = slotData;
        this.slotSize = slotSize(slotData);
        if (mem.address() % LINE != 0) {
            throw new ControlBlockException("control block " + segment.name() + " is mapped at 0x"
                    + Long.toHexString(mem.address()) + ", not " + LINE + "-byte aligned");
        }
    }

    private static VarHandle header(String field) {
        return HEADER.varHandle(groupElement(field));
    }

    /** A slot: its header, then the application's data, padded to a whole line. */
    private static long slotSize(MemoryLayout slotData) {
        return SLOT_HEADER.byteSize() + (slotData.byteSize() + LINE - 1) / LINE * LINE;
    }

    /**
     * {@return the size in bytes of a block for {@code processCount} processes with slot data laid out as
     * {@code slotData}}
     *
     * @param processCount the number of processes
     * @param slotData the format of each slot's application data
     */
    public static long sizeFor(int processCount, MemoryLayout slotData) {
        checkCount(processCount);
        checkSlotData(slotData);
        long used = HEADER.byteSize() + processCount * slotSize(slotData);
        return (used + PAGE - 1) / PAGE * PAGE;
    }

    /**
     * Creates the segment and writes the header; the block is not ready until {@link #publishReady()}.
     *
     * @param processCount 1 to {@value #MAX_PROCESSES}
     * @param slotData     the format of each slot's application data (alignment at most {@value #LINE} bytes)
     * @return the new block, owned by the caller
     */
    public static ControlBlock create(int processCount, MemoryLayout slotData) {
        return initialize(SharedSegment.create(sizeFor(processCount, slotData)), processCount, slotData);
    }

    /**
     * {@return a fresh block name for this process ({@link SharedSegment#newName})} A parent that starts its children
     * before it creates their block gives them this name; they {@linkplain #awaitCreated wait} for it.
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
        return initialize(SharedSegment.createNamed(name, sizeFor(processCount, slotData)), processCount, slotData);
    }

    /** Writes the header of a fresh segment; the magic last, so that an opener sees a whole header or none. */
    private static ControlBlock initialize(SharedSegment segment, int processCount, MemoryLayout slotData) {
        long size = sizeFor(processCount, slotData);
        try {
            long token = Entropy.nextLong();
            MemorySegment m = segment.memory();
            long pid = Pids.self();
            VERSION.set(m, 0L, LAYOUT_VERSION);
            PROCESS_COUNT.set(m, 0L, processCount);
            TOTAL_SIZE.set(m, 0L, size);
            CREATOR_PID.set(m, 0L, pid);
            RUN_TOKEN.set(m, 0L, token);
            CREATED_MILLIS.set(m, 0L, System.currentTimeMillis());
            SLOT_DATA_SIZE.set(m, 0L, (int) slotData.byteSize());
            SLOT_FORMAT.set(m, 0L, LayoutFingerprint.of(slotData));
            MAGIC_WORD.setRelease(m, 0L, MAGIC);
            return new ControlBlock(segment, processCount, pid, token, slotData);
        } catch (RuntimeException e) {
            closeAfterFailure(segment, e);
            throw e;
        }
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
        SharedSegment segment;
        try {
            segment = SharedSegment.open(name, owner);
        } catch (SharedSegmentException e) {
            throw new ControlBlockException(e.getMessage(), e);
        }
        return validate(segment, name, slotData, requireParentIsCreator);
    }

    /**
     * Child side, for children started before their block exists: waits until our parent has created block
     * {@code name} and written its header, then opens it as {@link #open(String, MemoryLayout)} does.
     *
     * @param name the block's name
     * @param slotData the format of the slots' application data the block must have been made for
     * @param timeout how long to wait for the block to appear
     * @return the open block
     * @throws ControlBlockException when the parent is gone first, at the timeout, or when the block is invalid
     */
    public static ControlBlock awaitCreated(String name, MemoryLayout slotData, Duration timeout) {
        long parent = Pids.parentPid();
        long deadline = System.nanoTime() + timeout.toNanos();
        // Polls the file system: a short park, not a spin (the parent is usually a few milliseconds away).
        IdleStrategy idle = new IdleStrategy(0, 0, 100_000, 1_000_000);
        // A file that is there but never gets a header (a foreign or truncated one) is named in the timeout's message.
        String seen = "";
        while (true) {
            SharedSegment segment;
            try {
                segment = SharedSegment.openIfCreated(name);
            } catch (SharedSegmentException e) {
                throw new ControlBlockException(e.getMessage(), e);
            }
            if (segment != null) {
                if (segment.size() >= HEADER.byteSize() && (long) MAGIC_WORD.getAcquire(segment.memory(), 0L) != 0) {
                    return validate(segment, name, slotData, true);
                }
                seen = " (the file is there, " + segment.size() + " bytes, " + (segment.size() < HEADER.byteSize()
                        ? "smaller than a header)" : "with no header written)");
                segment.close(); // sized, header not written yet
            }
            if (Pids.parentGone(parent)) {
                throw new ControlBlockException("the parent (pid " + parent + ") is gone; it never created control block "
                        + name);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new ControlBlockException("control block " + name + " was not created within "
                        + Durations.format(timeout) + seen);
            }
            idle.idle();
        }
    }

    private static ControlBlock validate(SharedSegment segment, String name, MemoryLayout slotData,
            boolean requireParentIsCreator) {
        try {
            MemorySegment m = segment.memory();
            String what = "control block " + name;
            if (segment.size() < HEADER.byteSize()) {
                throw new ControlBlockException(what + " is too small (" + segment.size() + " bytes) to be a control block");
            }
            long magic = (long) MAGIC_WORD.getAcquire(m, 0L);
            if (magic != MAGIC) {
                throw new ControlBlockException(what + " has bad magic 0x" + Long.toHexString(magic)
                        + ": not a cudaipc4j control block");
            }
            int version = (int) VERSION.get(m, 0L);
            if (version != LAYOUT_VERSION) {
                throw new ControlBlockException(what + " has layout version " + version + ", this build reads version "
                        + LAYOUT_VERSION);
            }
            int count = (int) PROCESS_COUNT.get(m, 0L);
            if (count < 1 || count > MAX_PROCESSES) {
                throw new ControlBlockException(what + " has an invalid process count " + count + " (1 to "
                        + MAX_PROCESSES + " allowed)");
            }
            int dataSize = (int) SLOT_DATA_SIZE.get(m, 0L);
            long format = (long) SLOT_FORMAT.get(m, 0L);
            if (dataSize != slotData.byteSize() || format != LayoutFingerprint.of(slotData)) {
                throw new ControlBlockException(what + " holds slot data of another format (" + dataSize
                        + " bytes, fingerprint " + Long.toHexString(format) + "; expected " + slotData.byteSize()
                        + " bytes, " + Long.toHexString(LayoutFingerprint.of(slotData)) + ")");
            }
            long expected = sizeFor(count, slotData);
            long recorded = (long) TOTAL_SIZE.get(m, 0L);
            if (segment.size() != expected || recorded != expected) {
                throw new ControlBlockException(what + " has the wrong size: file is " + segment.size()
                        + " bytes, header says " + recorded + ", " + count + " processes need " + expected);
            }
            long creator = (long) CREATOR_PID.get(m, 0L);
            if (requireParentIsCreator) {
                long parent = Pids.parentPid();
                if (creator != parent) {
                    throw new ControlBlockException(what + " was created by pid " + creator
                            + ", not by our parent (pid " + parent + ")");
                }
            }
            return new ControlBlock(segment, count, creator, (long) RUN_TOKEN.get(m, 0L), slotData);
        } catch (RuntimeException e) {
            closeAfterFailure(segment, e);
            throw e;
        }
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
        return mem.asSlice(slot(process) + SLOT_HEADER.byteSize(), slotData.byteSize(), slotData.byteAlignment());
    }

    /**
     * Records {@code pid} in slot {@code process}.
     *
     * @param process the slot's index
     * @param pid the pid of the process that took the slot
     */
    public void setPid(int process, long pid) {
        SLOT_PID.setRelease(mem, slot(process), pid);
    }

    /**
     * {@return the pid recorded by {@code process} when it joined; 0 before}
     *
     * @param process the slot's index
     */
    public long pid(int process) {
        return (long) SLOT_PID.getAcquire(mem, slot(process));
    }

    /**
     * Claims slot {@code process} for {@code pid}: succeeds when the slot is free, already ours, or held by a pid
     * that is no longer alive.
     *
     * @throws CoordinationException when a live process holds the slot
     */
    void claimSlot(int process, long pid) {
        long base = slot(process);
        while (true) {
            long holder = (long) SLOT_PID.getAcquire(mem, base);
            if (holder == pid) {
                return;
            }
            if (holder != 0 && Pids.isAlive(holder)) {
                throw new CoordinationException("process slot " + process + " of control block " + name()
                        + " is already taken by pid " + holder);
            }
            if (SLOT_PID.compareAndSet(mem, base, holder, pid)) {
                return;
            }
        }
    }

    /**
     * Records the status of {@code process} (a release write).
     *
     * @param process the slot's index
     * @param status the new status
     */
    public void setStatus(int process, ProcessStatus status) {
        SLOT_STATUS.setRelease(mem, slot(process), status.code());
    }

    /**
     * {@return the status of {@code process} (an acquire read)}
     *
     * @param process the slot's index
     */
    public ProcessStatus status(int process) {
        return ProcessStatus.ofCode((int) SLOT_STATUS.getAcquire(mem, slot(process)));
    }

    /**
     * Records that {@code process} is alive now (wall-clock millis).
     *
     * @param process the slot's index
     */
    public void heartbeat(int process) {
        SLOT_HEARTBEAT.setRelease(mem, slot(process), System.currentTimeMillis());
    }

    /**
     * {@return the wall-clock millis of the last {@link #heartbeat}; 0 if none yet}
     *
     * @param process the slot's index
     */
    public long lastHeartbeatMillis(int process) {
        return (long) SLOT_HEARTBEAT.getAcquire(mem, slot(process));
    }

    /**
     * Parent: call after every slot's data is written; children waiting in {@link #awaitAssignment} proceed to
     * set up. Call it at most once, and not after {@link #dismiss()}.
     */
    public void publishAssignment() {
        if (!ASSIGNMENT.compareAndSet(mem, 0L, 0, ASSIGNED)) {
            throw new IllegalStateException("control block " + name() + " was already assigned or dismissed");
        }
    }

    /**
     * Parent: the children started for this block are not needed after all (the group turned out to have another
     * size, or the run cannot go on); each leaves quietly from {@link #awaitAssignment}, which returns false.
     * Has no effect once the assignment is published.
     */
    public void dismiss() {
        ASSIGNMENT.compareAndSet(mem, 0L, 0, DISMISSED);
    }

    /**
     * Child: waits until the parent publishes the assignment ({@link #publishAssignment()}) or dismisses the group.
     *
     * @param timeout how long to wait
     * @return true when assigned, false when dismissed
     * @throws CoordinationException on timeout, when the group is aborted, or when the creator process died
     */
    public boolean awaitAssignment(Duration timeout) {
        awaitParent(timeout, "assignment", () -> (int) ASSIGNMENT.getAcquire(mem, 0L) != 0);
        return (int) ASSIGNMENT.getAcquire(mem, 0L) == ASSIGNED;
    }

    /** Parent: call after everything the children need is written; children waiting in {@link #awaitReady} proceed. */
    public void publishReady() {
        READY_WORD.setRelease(mem, 0L, READY);
    }

    /** {@return true once the parent has published that the children may go on ({@link #publishReady()})} */
    public boolean isReady() {
        return (long) READY_WORD.getAcquire(mem, 0L) == READY;
    }

    /**
     * Child: waits until the parent {@linkplain #publishReady() publishes} what the children need, idling without
     * burning a core.
     *
     * @param what what the parent publishes, for the messages ("handles")
     * @param timeout how long to wait
     * @throws CoordinationException on timeout, when the group is aborted, or when the creator process died
     */
    public void awaitReady(Duration timeout, String what) {
        awaitParent(timeout, what, this::isReady);
    }

    /** Waits for {@code done}, checking for an abort, the parent's death and the timeout. */
    private void awaitParent(Duration timeout, String what, BooleanSupplier done) {
        long start = System.nanoTime();
        long timeoutNanos = timeout.toNanos();
        long nextCheck = start + CHECK_EVERY_NANOS;
        IdleStrategy idle = IdleStrategy.forLongWait();
        while (!done.getAsBoolean()) {
            if (isAborted()) {
                throw new CoordinationException("waiting for the parent's " + what + ": " + describeAbort());
            }
            idle.idle();
            if (!idle.isSpinning()) {
                long now = System.nanoTime();
                if (now - nextCheck >= 0) {
                    nextCheck = now + CHECK_EVERY_NANOS;
                    if (!Pids.isAlive(creatorPid)) {
                        throw new CoordinationException("the parent (pid " + creatorPid
                                + ") died before publishing its " + what);
                    }
                }
                if (now - start >= timeoutNanos) {
                    throw new CoordinationException("timed out after " + Durations.format(timeout)
                            + " waiting for the parent to publish its " + what);
                }
            }
        }
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
            checkProcess(process);
        }
        if (!ABORT_WORD.compareAndSet(mem, 0L, 0, process + 2)) {
            runAbortListeners();
            return;
        }
        byte[] bytes = truncateUtf8(reason == null ? "" : reason.replace('\n', ' '), MAX_REASON_BYTES);
        MemorySegment.copy(bytes, 0, mem, JAVA_BYTE, ABORT_REASON_OFFSET, bytes.length);
        ABORT_REASON_LENGTH.set(mem, 0L, bytes.length);
        ABORT_REASON_READY.setRelease(mem, 0L, 1);
        // Processes blocked in a barrier wake up and see the abort now rather than at their next check.
        if (Libc.hasFutex()) {
            Libc.futexWakeAll(word(BARRIER_SENSE_OFFSET));
        }
        runAbortListeners();
    }

    /**
     * Runs {@code action} in this process whenever this process calls {@link #abort}, whether its abort or an
     * earlier one wins: the place to release what other processes might wait for (words a device polls). Actions
     * must be quick, must not throw, and may run more than once.
     *
     * @param action what to run on abort
     */
    public void onAbort(Runnable action) {
        synchronized (abortListeners) {
            abortListeners.add(action);
        }
    }

    private void runAbortListeners() {
        java.util.List<Runnable> actions;
        synchronized (abortListeners) {
            actions = java.util.List.copyOf(abortListeners);
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException ignored) {
                // An abort must go on; the listener's owner reports its own failures.
            }
        }
    }

    /** {@return true once any process aborted the group (one acquire read)} */
    public boolean isAborted() {
        return (int) ABORT_WORD.getAcquire(mem, 0L) != 0;
    }

    /** {@return the first abort, if any} */
    public Optional<Abort> abortState() {
        int word = (int) ABORT_WORD.getAcquire(mem, 0L);
        if (word == 0) {
            return Optional.empty();
        }
        int process = word - 2;
        // The reason follows the claim by a few stores; wait briefly, the aborter may have died in between.
        long deadline = System.nanoTime() + 100_000_000L;
        while ((int) ABORT_REASON_READY.getAcquire(mem, 0L) == 0) {
            if (System.nanoTime() - deadline > 0) {
                return Optional.of(new Abort(process, "(no reason recorded)"));
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        int length = Math.clamp((int) ABORT_REASON_LENGTH.get(mem, 0L), 0, MAX_REASON_BYTES);
        byte[] bytes = new byte[length];
        MemorySegment.copy(mem, JAVA_BYTE, ABORT_REASON_OFFSET, bytes, 0, length);
        return Optional.of(new Abort(process, new String(bytes, StandardCharsets.UTF_8)));
    }

    /** "aborted by process 3: reason" or "aborted by the parent: reason"; "not aborted" when not. */
    String describeAbort() {
        return abortState().map(Abort::describe).orElse("not aborted");
    }

    /**
     * {@return a barrier participant for process {@code index} over processes 0 to {@code processCount()-1}; each await
     * waits at most {@code timeout}}
     *
     * @param index the participant's process index
     * @param timeout the longest each await waits
     */
    public Barrier barrier(int index, Duration timeout) {
        checkProcess(index);
        return new Barrier(this, index, timeout);
    }

    /** Unmaps the block; the creator also unlinks it. Idempotent. */
    @Override
    public void close() {
        segment.close();
    }

    MemorySegment memory() {
        return mem;
    }

    /**
     * The 4-byte word at {@code offset} as a raw address for the kernel (futex). Not tied to the mapping's arena,
     * so a concurrent close cannot fail on it; a wait on an unmapped address returns at once (EFAULT).
     */
    @SuppressWarnings("restricted") // the address lies inside our own mapping
    MemorySegment word(long offset) {
        return MemorySegment.ofAddress(mem.address() + offset).reinterpret(4);
    }

    /** The byte offset of slot {@code process}. */
    long slot(int process) {
        checkProcess(process);
        return HEADER.byteSize() + process * slotSize;
    }

    private void checkProcess(int process) {
        if (process < 0 || process >= processCount) {
            throw new IndexOutOfBoundsException("process " + process + " out of range 0.." + (processCount - 1));
        }
    }

    private static void checkCount(int processCount) {
        if (processCount < 1 || processCount > MAX_PROCESSES) {
            throw new IllegalArgumentException("process count must be 1 to " + MAX_PROCESSES + ", got " + processCount);
        }
    }

    private static void checkSlotData(MemoryLayout slotData) {
        if (slotData.byteAlignment() > LINE) {
            throw new IllegalArgumentException("slot data may be aligned to at most " + LINE + " bytes, "
                    + slotData + " asks for " + slotData.byteAlignment());
        }
        if (slotData.byteSize() > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("slot data of " + slotData.byteSize() + " bytes is too large");
        }
    }

    private static void closeAfterFailure(SharedSegment segment, RuntimeException e) {
        try {
            segment.close();
        } catch (RuntimeException suppressed) {
            e.addSuppressed(suppressed);
        }
    }

    static byte[] truncateUtf8(String s, int maxBytes) {
        CharsetEncoder enc = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer out = ByteBuffer.allocate(maxBytes);
        // Encoding stops before a character that would not fit whole.
        enc.encode(CharBuffer.wrap(s), out, true);
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    /** Every hot word alone on its line, and slots line-aligned: the layouts above must keep these. */
    static void checkLayout() {
        for (String hot : new String[] {"barrierCount", "barrierSense", "barrierSleepers", "ready", "abortWord"}) {
            if (HEADER.byteOffset(groupElement(hot)) % LINE != 0) {
                throw new ExceptionInInitializerError("control block word " + hot + " must start its own line");
            }
        }
        if (HEADER.byteSize() % LINE != 0 || SLOT_HEADER.byteSize() % LINE != 0) {
            throw new ExceptionInInitializerError("control block header and slot header must fill whole lines");
        }
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
