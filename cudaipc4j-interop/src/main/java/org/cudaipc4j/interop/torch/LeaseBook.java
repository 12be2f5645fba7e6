package org.cudaipc4j.interop.torch;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.coord.SharedSegment;

/**
 * The list of torch slots a reader holds, in a shared segment that the reader's {@link LeaseWatcher} maps too:
 * what the watcher gives back if the reader dies. Written only by the reader; the watcher acts only once the reader
 * has exited (or closed the book), so an entry is never written and read at once.
 * <pre>
 *   0    int64  magic "CIPCTLB1"
 *   8    int32  version (1)
 *   12   int32  capacity (entries)
 *   16   int64  reader pid
 *   24   int32  closed: 1 once the reader gave everything back itself
 *   64 + 128 * i: entry i
 *     0   int32  state: 0 free, 1 held, 2 released
 *     4   int32  name length
 *     8   int64  slot
 *     16  112 bytes: the counter file's name (UTF-8)
 * </pre>
 * An entry becomes held only after its name and slot are written (a release store), and is marked released
 * before the slot is decremented: a reader killed between the two leaves that one slot held (a leak, as torch's
 * reader would), never given back twice (which could free memory under another reader).
 */
final class LeaseBook implements AutoCloseable {
    static final long MAGIC = 0x3142_4c54_4350_4943L; // "CIPCTLB1" little-endian
    static final int VERSION = 1;
    static final int HEADER = 64;
    static final int ENTRY = 128;
    static final int NAME_MAX = ENTRY - 16;
    static final int FREE = 0;
    static final int HELD = 1;
    static final int RELEASED = 2;
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final SharedSegment segment;
    private final MemorySegment m;
    private final int capacity;

    private LeaseBook(SharedSegment segment) {
        this.segment = segment;
        this.m = segment.memory();
        this.capacity = m.get(JAVA_INT, 12);
    }

    /** A new book for this process with room for {@code capacity} leases. */
    static LeaseBook create(int capacity) {
        SharedSegment s = SharedSegment.create("torchleases", HEADER + (long) ENTRY * capacity);
        MemorySegment m = s.memory();
        m.set(JAVA_INT, 8, VERSION);
        m.set(JAVA_INT, 12, capacity);
        m.set(JAVA_LONG, 16, ProcessHandle.current().pid());
        m.set(JAVA_LONG, 0, MAGIC);
        return new LeaseBook(s);
    }

    /** The watcher's view of a reader's book. */
    static LeaseBook open(String name) {
        SharedSegment s = SharedSegment.open(name);
        MemorySegment m = s.memory();
        if (m.byteSize() < HEADER || m.get(JAVA_LONG, 0) != MAGIC || m.get(JAVA_INT, 8) != VERSION
                || m.byteSize() != HEADER + (long) ENTRY * m.get(JAVA_INT, 12)) {
            s.close();
            throw new IllegalArgumentException("shared segment " + name + " is not a torch lease book of version "
                    + VERSION);
        }
        return new LeaseBook(s);
    }

    String name() {
        return segment.name();
    }

    Path path() {
        return segment.path();
    }

    int capacity() {
        return capacity;
    }

    /** Records a held slot in entry {@code i} (free or released). */
    void hold(int i, String counterName, long slot) {
        byte[] name = counterName.getBytes(StandardCharsets.UTF_8);
        if (name.length > NAME_MAX) {
            throw new IllegalArgumentException("torch counter name longer than " + NAME_MAX + " bytes: " + counterName);
        }
        long e = entry(i);
        m.set(JAVA_INT, e + 4, name.length);
        m.set(JAVA_LONG, e + 8, slot);
        MemorySegment.copy(name, 0, m, JAVA_BYTE, e + 16, name.length);
        INT.setRelease(m, e, HELD);
    }

    /** Marks entry {@code i} released; true when it was held (so exactly one caller gives its slot back). */
    boolean markReleased(int i) {
        return INT.compareAndSet(m, entry(i), HELD, RELEASED);
    }

    int state(int i) {
        return (int) INT.getAcquire(m, entry(i));
    }

    /** The held entries: counter name and slot each. */
    List<Held> held() {
        List<Held> out = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            if (state(i) == HELD) {
                long e = entry(i);
                int len = m.get(JAVA_INT, e + 4);
                if (len <= 0 || len > NAME_MAX) {
                    continue;
                }
                byte[] name = new byte[len];
                MemorySegment.copy(m, JAVA_BYTE, e + 16, name, 0, len);
                out.add(new Held(i, new String(name, StandardCharsets.UTF_8), m.get(JAVA_LONG, e + 8)));
            }
        }
        return out;
    }

    record Held(int index, String counterName, long slot) {}

    void markClosed() {
        INT.setRelease(m, 24L, 1);
    }

    boolean closed() {
        return (int) INT.getAcquire(m, 24L) == 1;
    }

    long readerPid() {
        return m.get(JAVA_LONG, 16);
    }

    private long entry(int i) {
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("lease entry " + i + " of " + capacity);
        }
        return HEADER + (long) ENTRY * i;
    }

    /** Unmaps; the reader's (creator's) close also removes the file. */
    @Override
    public void close() {
        segment.close();
    }
}
