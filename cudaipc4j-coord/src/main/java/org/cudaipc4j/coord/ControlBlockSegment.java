package org.cudaipc4j.coord;

import static org.cudaipc4j.coord.ControlBlock.LAYOUT_VERSION;
import static org.cudaipc4j.coord.ControlBlock.MAGIC;
import static org.cudaipc4j.coord.ControlBlock.MAX_PROCESSES;
import static org.cudaipc4j.coord.ControlBlockLayout.CREATED_MILLIS;
import static org.cudaipc4j.coord.ControlBlockLayout.CREATOR_PID;
import static org.cudaipc4j.coord.ControlBlockLayout.HEADER;
import static org.cudaipc4j.coord.ControlBlockLayout.MAGIC_WORD;
import static org.cudaipc4j.coord.ControlBlockLayout.PROCESS_COUNT;
import static org.cudaipc4j.coord.ControlBlockLayout.RUN_TOKEN;
import static org.cudaipc4j.coord.ControlBlockLayout.SLOT_DATA_SIZE;
import static org.cudaipc4j.coord.ControlBlockLayout.SLOT_FORMAT;
import static org.cudaipc4j.coord.ControlBlockLayout.TOTAL_SIZE;
import static org.cudaipc4j.coord.ControlBlockLayout.VERSION;
import static org.cudaipc4j.coord.ControlBlockLayout.sizeFor;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.function.Supplier;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.base.Libc;

/**
 * The shared segment under a control block: creates it and writes the header (magic last), opens it and validates
 * the header (owner, magic, version, process count, slot format fingerprint, size, creator), and waits for a block
 * that the parent has yet to create. A segment that fails on the way is closed here; a block returned owns its
 * segment.
 */
final class ControlBlockSegment {
    private ControlBlockSegment() {}

    /** Creates the segment under {@code name} and writes the header. */
    static ControlBlock create(String name, int processCount, MemoryLayout slotData) {
        return initialize(SharedSegment.createNamed(name, sizeFor(processCount, slotData)), processCount, slotData);
    }

    /** Creates the segment under the first free name of {@code names} and writes the header. */
    static ControlBlock create(Supplier<String> names, int processCount, MemoryLayout slotData) {
        return initialize(SharedSegment.createFresh(names, sizeFor(processCount, slotData), true), processCount, slotData);
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
            Closing.closeAfter(segment, e);
            throw e;
        }
    }

    /** Opens block {@code name}, which uid {@code owner} must own, and validates it. */
    static ControlBlock open(String name, MemoryLayout slotData, boolean requireParentIsCreator, long owner) {
        SharedSegment segment;
        try {
            segment = SharedSegment.open(name, owner);
        } catch (SharedSegmentException e) {
            throw new ControlBlockException(e.getMessage(), e);
        }
        return validate(segment, name, slotData, LayoutFingerprint.of(slotData), requireParentIsCreator);
    }

    /**
     * Takes the name from {@code names} once what needs none is done, waits until our parent has created the block
     * and written its header, then validates it.
     */
    static ControlBlock awaitCreated(Supplier<String> names, MemoryLayout slotData, Duration timeout) {
        // Before the name, which may still be on its way: what the open needs of none (see ControlBlock.awaitCreated).
        long owner = Libc.getuid();
        long fingerprint = LayoutFingerprint.of(slotData);
        String name = names.get();
        long parent = expectedParent(name);
        Deadline deadline = Deadline.after(timeout, "the timeout");
        // Polls the file system: a short park, not a spin (the parent is usually a few milliseconds away).
        IdleStrategy idle = IdleStrategy.backoff(0, 0, 100_000, 1_000_000);
        // A file that is there but never gets a header (a foreign or truncated one) is named in the timeout's message.
        String seen = "";
        while (true) {
            SharedSegment segment;
            try {
                segment = SharedSegment.openIfCreated(name, owner);
            } catch (SharedSegmentException e) {
                throw new ControlBlockException(e.getMessage(), e);
            }
            if (segment != null) {
                if (segment.size() >= HEADER.byteSize() && (long) MAGIC_WORD.getAcquire(segment.memory(), 0L) != 0) {
                    return validate(segment, name, slotData, fingerprint, true);
                }
                seen = " (the file is there, " + segment.size() + " bytes, " + (segment.size() < HEADER.byteSize()
                        ? "smaller than a header)" : "with no header written)");
                segment.close(); // sized, header not written yet
            }
            if (Pids.parentGone(parent)) {
                long actual = Pids.parentPid();
                throw new ControlBlockException(Pids.isAlive(parent) && actual != parent
                        ? "control block " + name + " is pid " + parent + "'s, not our parent's (pid " + actual + ")"
                        : "the parent (pid " + parent + ") is gone; it never created control block " + name);
            }
            if (deadline.hasPassed()) {
                throw new ControlBlockException("control block " + name + " was not created within "
                        + Durations.format(timeout) + seen);
            }
            idle.idle();
        }
    }

    /**
     * The parent a child of block {@code name} must have: its creator, whose pid the name carries (a segment's name
     * is always its maker's, see {@link SharedSegment#createNamed}), else the current parent. Taken from the name, a
     * parent that ended before this process looked is not mistaken for the process that adopted it.
     */
    private static long expectedParent(String name) {
        long creator = SharedSegment.creatorOf(name);
        return creator > 0 ? creator : Pids.parentPid();
    }

    private static ControlBlock validate(SharedSegment segment, String name, MemoryLayout slotData, long fingerprint,
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
            if (dataSize != slotData.byteSize() || format != fingerprint) {
                throw new ControlBlockException(what + " holds slot data of another format (" + dataSize
                        + " bytes, fingerprint " + Long.toHexString(format) + "; expected " + slotData.byteSize()
                        + " bytes, " + Long.toHexString(fingerprint) + ")");
            }
            long expected = sizeFor(count, slotData);
            long recorded = (long) TOTAL_SIZE.get(m, 0L);
            if (segment.size() != expected || recorded != expected) {
                throw new ControlBlockException(what + " has the wrong size: file is " + segment.size()
                        + " bytes, header says " + recorded + ", " + count + " processes need " + expected);
            }
            long creator = (long) CREATOR_PID.get(m, 0L);
            if (requireParentIsCreator) {
                long parent = expectedParent(name);
                long actual = Pids.parentPid();
                if (creator == parent && actual != parent && !Pids.isAlive(parent)) {
                    throw new ControlBlockException("the parent (pid " + parent + ") that created " + what
                            + " is gone");
                }
                if (creator != actual) {
                    throw new ControlBlockException(what + " was created by pid " + creator
                            + ", not by our parent (pid " + actual + ")");
                }
            }
            return new ControlBlock(segment, count, creator, (long) RUN_TOKEN.get(m, 0L), slotData);
        } catch (RuntimeException e) {
            Closing.closeAfter(segment, e);
            throw e;
        }
    }
}
