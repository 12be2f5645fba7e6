package org.cudaipc4j.coord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The shared block of a process group: who is in it, the IPC handles they share, the barrier, the abort word and
 * a status/heartbeat slot per process. It lives in a {@link SharedSegment}; the parent {@linkplain #create creates}
 * it, each child {@linkplain #open opens} it.
 *
 * <h2>Layout</h2>
 * All integers little-endian (native), naturally aligned; hot words sit on their own 128-byte line (a cache line
 * pair, so adjacent-line prefetch does not couple them). Offsets are in bytes.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  0  header (written once, magic last)
 *  |                      Magic "CIPC4JCB"                         |
 *  +-------------------------------+-------------------------------+  8
 *  |        Layout version         |         Process count         |
 *  +-------------------------------+-------------------------------+ 16
 *  |                 Total size of the block (bytes)               |
 *  +---------------------------------------------------------------+ 24
 *  |                          Creator PID                          |
 *  +---------------------------------------------------------------+ 32
 *  |                     Run token (random long)                   |
 *  +---------------------------------------------------------------+ 40
 *  |                Creation time (epoch millis)                   |
 *  +-------------------------------+-------------------------------+ 48
 *  | Assignment word (int, release)|  reserved to 128              |
 *  +-------------------------------+-------------------------------+ 52 .. 128 reserved
 *  |       Barrier count (int)      (line alone)                   | 128
 *  +---------------------------------------------------------------+
 *  |       Barrier sense (int)      (line alone)                   | 256
 *  +---------------------------------------------------------------+
 *  |       Barrier sleepers (int): processes blocked on the sense  | 384
 *  +---------------------------------------------------------------+
 *  |       Ready word (long, written last, release)                | 512
 *  +-------------------------------+-------------------------------+
 *  |   Abort word (int): 0 = none, |  Abort reason published (int) | 640
 *  |   else aborting process + 2   |                               |
 *  +-------------------------------+-------------------------------+ 648
 *  |   Abort reason length (int)   |  Abort reason, UTF-8,         |
 *  +-------------------------------+  up to 120 bytes ...          | 652 .. 772, reserved to 896
 *  +---------------------------------------------------------------+ 896
 *  |   Slot 0 (256 bytes), slot 1, ... slot count-1                |
 *  +---------------------------------------------------------------+ 896 + count * 256 = total size
 *
 *  Slot (256 bytes, 128-byte aligned):
 *  +---------------------------------------------------------------+ +0
 *  |                              PID                              |
 *  +-------------------------------+-------------------------------+ +8
 *  |        Device ordinal         |      Status (ProcessStatus)   |
 *  +-------------------------------+-------------------------------+ +16
 *  |               Heartbeat (epoch millis, 0 = never)             |
 *  +---------------------------------------------------------------+ +24 .. +64 reserved
 *  |          User words: 8 longs for the application              | +64 .. +128
 *  +---------------------------------------------------------------+ +128
 *  |          Memory IPC handle (64 bytes)                         |
 *  +---------------------------------------------------------------+ +192
 *  |          Event IPC handle (64 bytes)                          |
 *  +---------------------------------------------------------------+ +256
 * </pre>
 *
 * <p>Publication happens in two steps, so children can be started before the parent knows their devices: the
 * parent writes the device ordinals with plain stores and {@link #publishAssignment()} stores the assignment word
 * with release semantics (or {@link #dismiss()} sends the children home unused); later it writes the handles and
 * {@link #publishReady()} stores the ready word. Children {@link #awaitAssignment} and {@link #awaitReady} with
 * acquire reads. The abort word is claimed by compare-and-set, so the first abort wins.
 *
 * <p>Validation on {@link #open}: owner uid, magic, layout version, process count, size (file size equals the size
 * computed from the header's count, and the header's own size field), and that the header's creator PID is our
 * parent's PID. Each failure is a {@link ControlBlockException} with its own message.
 */
public final class ControlBlock implements AutoCloseable {
    /** Largest group. */
    public static final int MAX_PROCESSES = 1024;
    /** Size of a CUDA IPC handle ({@code CUipcMemHandle}, {@code CUipcEventHandle}). */
    public static final int HANDLE_BYTES = 64;
    /** The process number to pass to {@link #abort} when the parent aborts the group. */
    public static final int PARENT = -1;
    /** Number of {@linkplain #userWord application words} per slot. */
    public static final int USER_WORDS = 8;
    /** Longest abort reason kept, in UTF-8 bytes; longer reasons are cut at a character boundary. */
    public static final int MAX_REASON_BYTES = 120;

    /** "CIPC4JCB" read as a little-endian long. */
    public static final long MAGIC = 0x4243_4A34_4350_4943L;
    public static final int LAYOUT_VERSION = 2;

    public static final int LINE = 128;
    public static final long MAGIC_OFFSET = 0;
    public static final long VERSION_OFFSET = 8;
    public static final long PROCESS_COUNT_OFFSET = 12;
    public static final long TOTAL_SIZE_OFFSET = 16;
    public static final long CREATOR_PID_OFFSET = 24;
    public static final long RUN_TOKEN_OFFSET = 32;
    public static final long CREATED_MILLIS_OFFSET = 40;
    public static final long ASSIGNMENT_OFFSET = 48;
    public static final long BARRIER_COUNT_OFFSET = LINE;
    public static final long BARRIER_SENSE_OFFSET = 2 * LINE;
    public static final long BARRIER_SLEEPERS_OFFSET = 3 * LINE;
    public static final long READY_OFFSET = 4 * LINE;
    public static final long ABORT_WORD_OFFSET = 5 * LINE;
    public static final long ABORT_REASON_READY_OFFSET = ABORT_WORD_OFFSET + 4;
    public static final long ABORT_REASON_LENGTH_OFFSET = ABORT_WORD_OFFSET + 8;
    public static final long ABORT_REASON_OFFSET = ABORT_WORD_OFFSET + 12;
    public static final long SLOTS_OFFSET = 7 * LINE;
    public static final long SLOT_SIZE = 2 * LINE;
    public static final long SLOT_PID = 0;
    public static final long SLOT_DEVICE = 8;
    public static final long SLOT_STATUS = 12;
    public static final long SLOT_HEARTBEAT = 16;
    public static final long SLOT_USER = 64;
    public static final long SLOT_MEMORY_HANDLE = 128;
    public static final long SLOT_EVENT_HANDLE = 192;

    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

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

    private ControlBlock(SharedSegment segment, int processCount, long creatorPid, long runToken) {
        this.segment = segment;
        this.mem = segment.memory();
        this.processCount = processCount;
        this.creatorPid = creatorPid;
        this.runToken = runToken;
        if (mem.address() % LINE != 0) {
            throw new ControlBlockException("control block " + segment.name() + " is mapped at 0x"
                    + Long.toHexString(mem.address()) + ", not " + LINE + "-byte aligned");
        }
    }

    /** Size in bytes of a block for {@code processCount} processes. */
    public static long sizeFor(int processCount) {
        checkCount(processCount);
        return SLOTS_OFFSET + processCount * SLOT_SIZE;
    }

    /**
     * Creates the segment and writes the header; the block is not ready until {@link #publishReady()}.
     *
     * @param processCount 1 to {@value #MAX_PROCESSES}
     */
    public static ControlBlock create(int processCount) {
        return initialize(SharedSegment.create(sizeFor(processCount)), processCount);
    }

    /**
     * A fresh block name for this process ({@link SharedSegment#newName}). A parent that starts its children
     * before it creates their block gives them this name; they {@linkplain #awaitCreated wait} for it.
     */
    public static String newName() {
        return SharedSegment.newName(null);
    }

    /** As {@link #create(int)}, under {@code name} from {@link #newName()}. */
    public static ControlBlock create(String name, int processCount) {
        return initialize(SharedSegment.createNamed(name, sizeFor(processCount)), processCount);
    }

    /** Writes the header of a fresh segment; the magic last, so that an opener sees a whole header or none. */
    private static ControlBlock initialize(SharedSegment segment, int processCount) {
        long size = sizeFor(processCount);
        try {
            long token = Entropy.nextLong();
            MemorySegment m = segment.memory();
            long pid = Pids.self();
            m.set(ValueLayout.JAVA_INT, VERSION_OFFSET, LAYOUT_VERSION);
            m.set(ValueLayout.JAVA_INT, PROCESS_COUNT_OFFSET, processCount);
            m.set(ValueLayout.JAVA_LONG, TOTAL_SIZE_OFFSET, size);
            m.set(ValueLayout.JAVA_LONG, CREATOR_PID_OFFSET, pid);
            m.set(ValueLayout.JAVA_LONG, RUN_TOKEN_OFFSET, token);
            m.set(ValueLayout.JAVA_LONG, CREATED_MILLIS_OFFSET, System.currentTimeMillis());
            for (int p = 0; p < processCount; p++) {
                m.set(ValueLayout.JAVA_INT, SLOTS_OFFSET + p * SLOT_SIZE + SLOT_DEVICE, -1);
            }
            LONG.setRelease(m, MAGIC_OFFSET, MAGIC);
            return new ControlBlock(segment, processCount, pid, token);
        } catch (RuntimeException e) {
            closeAfterFailure(segment, e);
            throw e;
        }
    }

    /** Child side: opens and validates the block, requiring that our parent process created it. */
    public static ControlBlock open(String name) {
        return open(name, true);
    }

    /**
     * Opens and validates the block.
     *
     * @param requireParentIsCreator when true, the header's creator PID must be our parent's PID (children);
     *                               tools and tests that open a block from elsewhere pass false
     * @throws ControlBlockException when the segment is missing, foreign or not a valid control block
     */
    public static ControlBlock open(String name, boolean requireParentIsCreator) {
        SharedSegment segment;
        try {
            segment = SharedSegment.open(name);
        } catch (SharedSegmentException e) {
            throw new ControlBlockException(e.getMessage(), e);
        }
        return validate(segment, name, requireParentIsCreator);
    }

    /**
     * Child side, for children started before their block exists: waits until our parent has created block
     * {@code name} and written its header, then opens it as {@link #open(String)} does.
     *
     * @throws ControlBlockException when the parent is gone first, at the timeout, or when the block is invalid
     */
    public static ControlBlock awaitCreated(String name, Duration timeout) {
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
                if (segment.size() >= SLOTS_OFFSET && (long) LONG.getAcquire(segment.memory(), MAGIC_OFFSET) != 0) {
                    return validate(segment, name, true);
                }
                seen = " (the file is there, " + segment.size() + " bytes, " + (segment.size() < SLOTS_OFFSET
                        ? "smaller than a header)" : "with no header written)");
                segment.close(); // sized, header not written yet
            }
            if (Pids.parentGone(parent)) {
                throw new ControlBlockException("the parent (pid " + parent + ") is gone; it never created control block "
                        + name);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new ControlBlockException("control block " + name + " was not created within "
                        + Barrier.format(timeout) + seen);
            }
            idle.idle();
        }
    }

    private static ControlBlock validate(SharedSegment segment, String name, boolean requireParentIsCreator) {
        try {
            MemorySegment m = segment.memory();
            String what = "control block " + name;
            if (segment.size() < SLOTS_OFFSET) {
                throw new ControlBlockException(what + " is too small (" + segment.size() + " bytes) to be a control block");
            }
            long magic = (long) LONG.getAcquire(m, MAGIC_OFFSET);
            if (magic != MAGIC) {
                throw new ControlBlockException(what + " has bad magic 0x" + Long.toHexString(magic)
                        + ": not a cudaipc4j control block");
            }
            int version = m.get(ValueLayout.JAVA_INT, VERSION_OFFSET);
            if (version != LAYOUT_VERSION) {
                throw new ControlBlockException(what + " has layout version " + version + ", this build reads version "
                        + LAYOUT_VERSION);
            }
            int count = m.get(ValueLayout.JAVA_INT, PROCESS_COUNT_OFFSET);
            if (count < 1 || count > MAX_PROCESSES) {
                throw new ControlBlockException(what + " has an invalid process count " + count + " (1 to "
                        + MAX_PROCESSES + " allowed)");
            }
            long expected = sizeFor(count);
            long recorded = m.get(ValueLayout.JAVA_LONG, TOTAL_SIZE_OFFSET);
            if (segment.size() != expected || recorded != expected) {
                throw new ControlBlockException(what + " has the wrong size: file is " + segment.size()
                        + " bytes, header says " + recorded + ", " + count + " processes need " + expected);
            }
            long creator = m.get(ValueLayout.JAVA_LONG, CREATOR_PID_OFFSET);
            if (requireParentIsCreator) {
                long parent = Pids.parentPid();
                if (creator != parent) {
                    throw new ControlBlockException(what + " was created by pid " + creator
                            + ", not by our parent (pid " + parent + ")");
                }
            }
            return new ControlBlock(segment, count, creator, m.get(ValueLayout.JAVA_LONG, RUN_TOKEN_OFFSET));
        } catch (RuntimeException e) {
            closeAfterFailure(segment, e);
            throw e;
        }
    }

    public String name() {
        return segment.name();
    }

    /** The underlying segment (for tools and tests). */
    public SharedSegment segment() {
        return segment;
    }

    public int processCount() {
        return processCount;
    }

    public long creatorPid() {
        return creatorPid;
    }

    /** A random value chosen at creation, distinct for every run. */
    public long runToken() {
        return runToken;
    }

    /** True in the process that created the block. */
    public boolean isCreator() {
        return segment.isCreator();
    }

    public void setDeviceOrdinal(int process, int ordinal) {
        mem.set(ValueLayout.JAVA_INT, slot(process) + SLOT_DEVICE, ordinal);
    }

    /** The device ordinal of {@code process}; -1 until the parent sets it. */
    public int deviceOrdinal(int process) {
        return mem.get(ValueLayout.JAVA_INT, slot(process) + SLOT_DEVICE);
    }

    public void setMemoryHandle(int process, byte[] handle64) {
        putHandle(slot(process) + SLOT_MEMORY_HANDLE, handle64, "memory");
    }

    public byte[] memoryHandle(int process) {
        return getHandle(slot(process) + SLOT_MEMORY_HANDLE);
    }

    public void setEventHandle(int process, byte[] handle64) {
        putHandle(slot(process) + SLOT_EVENT_HANDLE, handle64, "event");
    }

    public byte[] eventHandle(int process) {
        return getHandle(slot(process) + SLOT_EVENT_HANDLE);
    }

    public void setPid(int process, long pid) {
        LONG.setRelease(mem, slot(process) + SLOT_PID, pid);
    }

    /** The pid recorded by {@code process} when it joined; 0 before. */
    public long pid(int process) {
        return (long) LONG.getAcquire(mem, slot(process) + SLOT_PID);
    }

    /**
     * Claims slot {@code process} for {@code pid}: succeeds when the slot is free, already ours, or held by a pid
     * that is no longer alive.
     *
     * @throws CoordinationException when a live process holds the slot
     */
    void claimSlot(int process, long pid) {
        long offset = slot(process) + SLOT_PID;
        while (true) {
            long holder = (long) LONG.getAcquire(mem, offset);
            if (holder == pid) {
                return;
            }
            if (holder != 0 && Pids.isAlive(holder)) {
                throw new CoordinationException("process slot " + process + " of control block " + name()
                        + " is already taken by pid " + holder);
            }
            if (LONG.compareAndSet(mem, offset, holder, pid)) {
                return;
            }
        }
    }

    public void setStatus(int process, ProcessStatus status) {
        INT.setRelease(mem, slot(process) + SLOT_STATUS, status.code());
    }

    public ProcessStatus status(int process) {
        return ProcessStatus.ofCode((int) INT.getAcquire(mem, slot(process) + SLOT_STATUS));
    }

    /** Records that {@code process} is alive now (wall-clock millis). */
    public void heartbeat(int process) {
        LONG.setRelease(mem, slot(process) + SLOT_HEARTBEAT, System.currentTimeMillis());
    }

    /** The wall-clock millis of the last {@link #heartbeat}; 0 if none yet. */
    public long lastHeartbeatMillis(int process) {
        return (long) LONG.getAcquire(mem, slot(process) + SLOT_HEARTBEAT);
    }

    /** Stores application word {@code word} (0 to {@value #USER_WORDS}-1) of {@code process}'s slot (release). */
    public void setUserWord(int process, int word, long value) {
        LONG.setRelease(mem, userOffset(process, word), value);
    }

    /** Reads application word {@code word} of {@code process}'s slot (acquire). */
    public long userWord(int process, int word) {
        return (long) LONG.getAcquire(mem, userOffset(process, word));
    }

    /**
     * Parent: call after every device ordinal is written; children waiting in {@link #awaitAssignment} proceed
     * to set up on their device. Call it at most once, and not after {@link #dismiss()}.
     */
    public void publishAssignment() {
        if (!INT.compareAndSet(mem, ASSIGNMENT_OFFSET, 0, ASSIGNED)) {
            throw new IllegalStateException("control block " + name() + " was already assigned or dismissed");
        }
    }

    /**
     * Parent: the children started for this block are not needed after all (the group turned out to have another
     * size, or the run cannot go on); each leaves quietly from {@link #awaitAssignment}, which returns false.
     * Has no effect once the assignment is published.
     */
    public void dismiss() {
        INT.compareAndSet(mem, ASSIGNMENT_OFFSET, 0, DISMISSED);
    }

    /**
     * Child: waits until the parent assigns the devices ({@link #publishAssignment()}) or dismisses the group.
     *
     * @return true when assigned, false when dismissed
     * @throws CoordinationException on timeout, when the group is aborted, or when the creator process died
     */
    public boolean awaitAssignment(Duration timeout) {
        awaitParent(timeout, "device assignment",
                () -> (int) INT.getAcquire(mem, ASSIGNMENT_OFFSET) != 0);
        return (int) INT.getAcquire(mem, ASSIGNMENT_OFFSET) == ASSIGNED;
    }

    /** Parent: call after every handle and ordinal is written; children waiting in {@link #awaitReady} proceed. */
    public void publishReady() {
        LONG.setRelease(mem, READY_OFFSET, READY);
    }

    public boolean isReady() {
        return (long) LONG.getAcquire(mem, READY_OFFSET) == READY;
    }

    /**
     * Child: waits until the parent {@linkplain #publishReady() publishes} the handles, idling without burning a
     * core.
     *
     * @throws CoordinationException on timeout, when the group is aborted, or when the creator process died
     */
    public void awaitReady(Duration timeout) {
        awaitParent(timeout, "handles", this::isReady);
    }

    /** Waits for {@code done}, checking for an abort, the parent's death and the timeout. */
    private void awaitParent(Duration timeout, String what, BooleanSupplier done) {
        long start = System.nanoTime();
        long timeoutNanos = timeout.toNanos();
        long nextCheck = start + CHECK_EVERY_NANOS;
        IdleStrategy idle = IdleStrategy.forLongWait();
        while (!done.getAsBoolean()) {
            if (isAborted()) {
                throw new CoordinationException("waiting for the parent's " + what + ": "
                        + describeAbort());
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
                    throw new CoordinationException("timed out after " + Barrier.format(timeout)
                            + " waiting for the parent to publish its " + what);
                }
            }
        }
    }

    /**
     * Aborts the group: the first call wins (compare-and-set); later calls keep the first reason. Barriers and
     * {@link #awaitReady} in every process notice it and throw.
     *
     * @param process the aborting process, or {@link #PARENT}
     * @param reason  one line; cut to {@value #MAX_REASON_BYTES} UTF-8 bytes
     */
    public void abort(int process, String reason) {
        if (process != PARENT) {
            checkProcess(process);
        }
        if (!INT.compareAndSet(mem, ABORT_WORD_OFFSET, 0, process + 2)) {
            return;
        }
        byte[] bytes = truncateUtf8(reason == null ? "" : reason.replace('\n', ' '), MAX_REASON_BYTES);
        MemorySegment.copy(bytes, 0, mem, ValueLayout.JAVA_BYTE, ABORT_REASON_OFFSET, bytes.length);
        mem.set(ValueLayout.JAVA_INT, ABORT_REASON_LENGTH_OFFSET, bytes.length);
        INT.setRelease(mem, ABORT_REASON_READY_OFFSET, 1);
        // Processes blocked in a barrier wake up and see the abort now rather than at their next check.
        if (Libc.hasFutex()) {
            Libc.futexWakeAll(word(BARRIER_SENSE_OFFSET));
        }
    }

    /** True once any process aborted the group (one acquire read). */
    public boolean isAborted() {
        return (int) INT.getAcquire(mem, ABORT_WORD_OFFSET) != 0;
    }

    /** The first abort, if any. */
    public Optional<Abort> abortState() {
        int word = (int) INT.getAcquire(mem, ABORT_WORD_OFFSET);
        if (word == 0) {
            return Optional.empty();
        }
        int process = word - 2;
        // The reason follows the claim by a few stores; wait briefly, the aborter may have died in between.
        long deadline = System.nanoTime() + 100_000_000L;
        while ((int) INT.getAcquire(mem, ABORT_REASON_READY_OFFSET) == 0) {
            if (System.nanoTime() - deadline > 0) {
                return Optional.of(new Abort(process, "(no reason recorded)"));
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        int length = Math.clamp(mem.get(ValueLayout.JAVA_INT, ABORT_REASON_LENGTH_OFFSET), 0, MAX_REASON_BYTES);
        byte[] bytes = new byte[length];
        MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, ABORT_REASON_OFFSET, bytes, 0, length);
        return Optional.of(new Abort(process, new String(bytes, StandardCharsets.UTF_8)));
    }

    /** "aborted by process 3: reason" or "aborted by the parent: reason"; "not aborted" when not. */
    String describeAbort() {
        return abortState().map(Abort::describe).orElse("not aborted");
    }

    /**
     * A barrier participant for process {@code index} over processes 0 to {@code processCount()-1}; each await
     * waits at most {@code timeout}.
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

    long slot(int process) {
        checkProcess(process);
        return SLOTS_OFFSET + process * SLOT_SIZE;
    }

    private long userOffset(int process, int word) {
        if (word < 0 || word >= USER_WORDS) {
            throw new IndexOutOfBoundsException("user word " + word + " out of range 0.." + (USER_WORDS - 1));
        }
        return slot(process) + SLOT_USER + 8L * word;
    }

    private void checkProcess(int process) {
        if (process < 0 || process >= processCount) {
            throw new IndexOutOfBoundsException("process " + process + " out of range 0.." + (processCount - 1));
        }
    }

    private void putHandle(long offset, byte[] handle, String kind) {
        if (handle == null || handle.length != HANDLE_BYTES) {
            throw new IllegalArgumentException(kind + " IPC handle must be " + HANDLE_BYTES + " bytes, got "
                    + (handle == null ? "null" : handle.length));
        }
        MemorySegment.copy(handle, 0, mem, ValueLayout.JAVA_BYTE, offset, HANDLE_BYTES);
    }

    private byte[] getHandle(long offset) {
        byte[] h = new byte[HANDLE_BYTES];
        MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, offset, h, 0, HANDLE_BYTES);
        return h;
    }

    private static void checkCount(int processCount) {
        if (processCount < 1 || processCount > MAX_PROCESSES) {
            throw new IllegalArgumentException("process count must be 1 to " + MAX_PROCESSES + ", got " + processCount);
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

    /** Every atomic word must be naturally aligned and every hot word alone on its line. */
    static void checkLayout() {
        long[] ints = {VERSION_OFFSET, PROCESS_COUNT_OFFSET, BARRIER_COUNT_OFFSET, BARRIER_SENSE_OFFSET,
                BARRIER_SLEEPERS_OFFSET,
                ABORT_WORD_OFFSET, ABORT_REASON_READY_OFFSET, ABORT_REASON_LENGTH_OFFSET, ASSIGNMENT_OFFSET, SLOT_DEVICE,
                SLOT_STATUS};
        long[] longs = {MAGIC_OFFSET, TOTAL_SIZE_OFFSET, CREATOR_PID_OFFSET, RUN_TOKEN_OFFSET, CREATED_MILLIS_OFFSET,
                READY_OFFSET, SLOT_PID, SLOT_HEARTBEAT, SLOT_USER};
        for (long o : ints) {
            if (o % 4 != 0) {
                throw new ExceptionInInitializerError("int field at offset " + o + " is not 4-byte aligned");
            }
        }
        for (long o : longs) {
            if (o % 8 != 0) {
                throw new ExceptionInInitializerError("long field at offset " + o + " is not 8-byte aligned");
            }
        }
        if (BARRIER_COUNT_OFFSET % LINE != 0 || BARRIER_SENSE_OFFSET % LINE != 0
                || BARRIER_SLEEPERS_OFFSET % LINE != 0 || READY_OFFSET % LINE != 0
                || ABORT_WORD_OFFSET % LINE != 0 || SLOTS_OFFSET % LINE != 0 || SLOT_SIZE % LINE != 0) {
            throw new ExceptionInInitializerError("control block hot words must start their own " + LINE + "-byte line");
        }
        if (ABORT_REASON_OFFSET + MAX_REASON_BYTES > SLOTS_OFFSET || BARRIER_SLEEPERS_OFFSET >= READY_OFFSET
                || SLOT_USER + 8L * USER_WORDS > SLOT_MEMORY_HANDLE
                || SLOT_EVENT_HANDLE + HANDLE_BYTES > SLOT_SIZE) {
            throw new ExceptionInInitializerError("control block fields overlap");
        }
    }

    /**
     * The first abort of the group.
     *
     * @param process the aborting process, or {@link #PARENT}
     * @param reason  what it said
     */
    public record Abort(int process, String reason) {
        /** "aborted by process 3: reason" or "aborted by the parent: reason". */
        public String describe() {
            return (process == PARENT ? "aborted by the parent" : "aborted by process " + process) + ": " + reason;
        }
    }
}
