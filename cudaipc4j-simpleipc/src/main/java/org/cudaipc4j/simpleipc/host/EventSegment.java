package org.cudaipc4j.simpleipc.host;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.IdleStrategy;
import org.cudaipc4j.simpleipc.backend.BackendException;

/**
 * A simulated interprocess event: completion tickets in a small shared segment.
 *
 * <p>{@code record} takes a ticket when it is called (atomic increment of the record sequence) and the stream
 * later completes it; a wait captures the most recent ticket when it is called and waits until the completed
 * sequence reaches it, so it never covers a record made after it. Completion is monotonic (a compare-and-set
 * maximum): were two streams to record the same event concurrently, the later ticket completing first would also
 * release waiters of the earlier one. simpleIPC never does that; its barrier orders every record of an event.
 *
 * <pre>
 *   0                                       8
 *   +---------------------------------------+
 *   | magic "C4JEVT01"                       |    0  written last, with release, by the exporter
 *   +---------------------------------------+
 *   | (pad to 128)                          |
 *   +---------------------------------------+
 *   | record sequence (last ticket taken)   |  128  get-and-add
 *   | pid of the last recorder              |  136  release write before the ticket is taken
 *   +---------------------------------------+
 *   | (pad to 256)                          |
 *   +---------------------------------------+
 *   | completed sequence                    |  256  release compare-and-set (maximum), acquire reads
 *   +---------------------------------------+
 *   | (pad to 384)                          |  384  SIZE
 * </pre>
 * Hot words sit on their own 128-byte lines (false sharing, adjacent-line prefetch). Described once as
 * {@link #LAYOUT}; offsets and var handles are taken from it.
 */
final class EventSegment {
    static final long MAGIC = 0x3130_5456_454A_3443L; // "C4JEVT01" read as a little-endian long
    /** The line every hot word has to itself. */
    private static final long LINE = 128;

    /** The segment: the magic, the recorders' line, the completion line. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("magic"), MemoryLayout.paddingLayout(LINE - 8),
            JAVA_LONG.withName("record"),
            JAVA_LONG.withName("recorderPid"), MemoryLayout.paddingLayout(LINE - 16),
            JAVA_LONG.withName("completed"), MemoryLayout.paddingLayout(LINE - 8)).withName("HostEvent");
    /** The segment's size. */
    static final long SIZE = LAYOUT.byteSize();

    private static final VarHandle MAGIC_WORD = LAYOUT.varHandle(groupElement("magic"));
    private static final VarHandle RECORD = LAYOUT.varHandle(groupElement("record"));
    private static final VarHandle RECORDER_PID = LAYOUT.varHandle(groupElement("recorderPid"));
    private static final VarHandle COMPLETED = LAYOUT.varHandle(groupElement("completed"));
    private static final long LIVENESS_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final MemorySegment memory;
    private final String name;

    private EventSegment(MemorySegment memory, String name) {
        if (memory.byteSize() != SIZE) {
            throw new BackendException("event segment " + name + " is " + memory.byteSize() + " bytes, not " + SIZE);
        }
        if (memory.address() % Long.BYTES != 0) {
            throw new BackendException("event segment " + name + " is not 8-byte aligned");
        }
        this.memory = memory;
        this.name = name;
    }

    /** Exporter: writes a fresh event into a newly created segment. */
    static EventSegment initialize(MemorySegment memory, String name) {
        EventSegment e = new EventSegment(memory, name);
        memory.fill((byte) 0);
        MAGIC_WORD.setRelease(memory, 0L, MAGIC);
        return e;
    }

    /** Opener: validates an existing event segment. */
    static EventSegment attach(MemorySegment memory, String name) {
        EventSegment e = new EventSegment(memory, name);
        long magic = (long) MAGIC_WORD.getAcquire(memory, 0L);
        if (magic != MAGIC) {
            throw new BackendException(String.format("segment %s is not a host event (magic 0x%016x)", name, magic));
        }
        return e;
    }

    String name() {
        return name;
    }

    /** Takes the next ticket; the caller completes it once the work before the record has run. */
    long takeTicket() {
        RECORDER_PID.setRelease(memory, 0L, ProcessHandle.current().pid());
        return (long) RECORD.getAndAdd(memory, 0L, 1L) + 1;
    }

    /** The most recent ticket taken (0: never recorded). */
    long lastTicket() {
        return (long) RECORD.getAcquire(memory, 0L);
    }

    long completed() {
        return (long) COMPLETED.getAcquire(memory, 0L);
    }

    long lastRecorderPid() {
        return (long) RECORDER_PID.getAcquire(memory, 0L);
    }

    /** Marks {@code ticket} (and so every earlier one) complete. */
    void complete(long ticket) {
        long current;
        do {
            current = completed();
            if (current >= ticket) {
                return;
            }
        } while (!COMPLETED.weakCompareAndSetRelease(memory, 0L, current, ticket));
    }

    /**
     * Waits until {@code ticket} is complete: spins briefly, then yields, then parks with a backoff up to 1 ms.
     *
     * @throws StreamClosedException when {@code cancelled} becomes true
     * @throws RecorderExitedException when the process that last recorded the event has exited with the ticket
     *         still incomplete (checked every 50 ms of waiting)
     * @throws BackendException on timeout
     */
    void await(long ticket, long timeoutNanos, BooleanSupplier cancelled) {
        Deadline deadline = HostBackend.deadline(timeoutNanos);
        long nextLivenessCheck = System.nanoTime() + LIVENESS_CHECK_NANOS;
        IdleStrategy idle = IdleStrategy.backoff(100, 50, 1_000, MAX_PARK_NANOS);
        while (completed() < ticket) {
            if (cancelled.getAsBoolean()) {
                throw new StreamClosedException();
            }
            if (!idle.shouldBlock()) {
                idle.idle(); // spinning, then yielding: the record is usually microseconds away
                continue;
            }
            long now = System.nanoTime();
            if (deadline.hasPassed()) {
                throw new BackendException(String.format("wait for event %s record #%d timed out after %s",
                        name, ticket, HostBackend.seconds(timeoutNanos)));
            }
            if (now - nextLivenessCheck >= 0) {
                nextLivenessCheck = now + LIVENESS_CHECK_NANOS;
                checkRecorderAlive(ticket);
            }
            idle.idle();
        }
    }

    private void checkRecorderAlive(long ticket) {
        long pid = lastRecorderPid();
        if (pid == 0 || pid == ProcessHandle.current().pid()) {
            return;
        }
        boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        if (!alive && completed() < ticket) {
            throw new RecorderExitedException(String.format(
                    "event %s record #%d will never complete: the process that recorded it (pid %d) has exited",
                    name, ticket, pid));
        }
    }

    /** The wait ended because its stream was closed. */
    static final class StreamClosedException extends RuntimeException {
        StreamClosedException() {
            super("stream closed while waiting for an event", null, false, false);
        }
    }

    /** The event's last recorder died before completing the awaited record. */
    static final class RecorderExitedException extends BackendException {
        RecorderExitedException(String message) {
            super(message);
        }
    }
}
