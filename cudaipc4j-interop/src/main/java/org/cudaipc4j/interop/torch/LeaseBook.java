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
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.coord.SharedSegment;

/**
 * The list of torch slots a reader holds, in shared segments that the reader's {@link LeaseWatcher} maps too: what
 * the watcher gives back if the reader dies. Written only by the reader; the watcher acts only once the reader has
 * exited (or closed the book), so an entry is never written and read at once.
 *
 * <p>The book grows as the reader needs: a chain of pages, page {@code k} holding {@code first * 2^k} entries, each
 * page a segment whose header names the next one. Entry {@code i} of the book is in the page whose range covers it.
 * <pre>
 *   page header (128 bytes)
 *   0    int64  magic "CIPCTLB2"
 *   8    int32  version (2)
 *   12   int32  capacity of this page (entries)
 *   16   int64  reader pid
 *   24   int32  closed (page 0): 1 once the reader gave everything back itself
 *   28   int32  length of the next page's name, 0 while there is none
 *   64   64 bytes: the next page's segment name (ASCII)
 *   128 + 128 * i: entry i of the page
 *     0   int32  state: 0 free, 1 held, 2 released
 *     4   int32  name length
 *     8   int64  slot
 *     16  112 bytes: the counter file's name (UTF-8)
 * </pre>
 * An entry becomes held only after its name and slot are written (a release store), and is marked released
 * before the slot is decremented: a reader killed between the two leaves that one slot held (a leak, as torch's
 * reader would), never given back twice (which could free memory under another reader). A page is linked (its
 * name's length stored last) only once it is made, so the watcher finds every page that holds an entry.
 */
final class LeaseBook implements AutoCloseable {
    static final long MAGIC = 0x3242_4c54_4350_4943L; // "CIPCTLB2" little-endian
    static final int VERSION = 2;
    static final int HEADER = 128;
    static final int ENTRY = 128;
    static final int NAME_MAX = ENTRY - 16;
    /** Entries of the first page by default: 128 KiB, enough for most state dicts. */
    static final int FIRST_PAGE = 1024;
    static final int FREE = 0;
    static final int HELD = 1;
    static final int RELEASED = 2;
    private static final int NEXT_LENGTH = 28;
    private static final int NEXT_NAME = 64;
    private static final int NEXT_NAME_MAX = HEADER - NEXT_NAME;
    private static final String SUFFIX = "torchleases";
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final List<SharedSegment> pages = new ArrayList<>();
    private final int first;
    private final boolean reader;
    private long capacity;

    private LeaseBook(SharedSegment page0, boolean reader) {
        this.pages.add(page0);
        this.first = page0.memory().get(JAVA_INT, 12);
        this.capacity = first;
        this.reader = reader;
    }

    /** A new book for this process whose first page has room for {@code first} leases. */
    static LeaseBook create(int first) {
        if (first < 1) {
            throw new IllegalArgumentException("a lease book's first page needs at least 1 entry, got " + first);
        }
        return new LeaseBook(newPage(first), true);
    }

    private static SharedSegment newPage(long entries) {
        SharedSegment s = SharedSegment.create(SUFFIX, HEADER + ENTRY * entries);
        MemorySegment m = s.memory();
        m.set(JAVA_INT, 8, VERSION);
        m.set(JAVA_INT, 12, (int) entries);
        m.set(JAVA_LONG, 16, ProcessHandle.current().pid());
        m.set(JAVA_LONG, 0, MAGIC);
        return s;
    }

    /** The watcher's view of a reader's book: its first page; the others are opened when read. */
    static LeaseBook open(String name) {
        return new LeaseBook(openPage(name), false);
    }

    private static SharedSegment openPage(String name) {
        SharedSegment s = SharedSegment.open(name);
        MemorySegment m = s.memory();
        if (m.byteSize() < HEADER || m.get(JAVA_LONG, 0) != MAGIC || m.get(JAVA_INT, 8) != VERSION
                || m.get(JAVA_INT, 12) < 1 || m.byteSize() != HEADER + (long) ENTRY * m.get(JAVA_INT, 12)) {
            s.close();
            throw new IllegalArgumentException("shared segment " + name + " is not a torch lease book page of version "
                    + VERSION);
        }
        return s;
    }

    String name() {
        return pages.getFirst().name();
    }

    Path path() {
        return pages.getFirst().path();
    }

    /** {@return the files of every page mapped here} */
    List<Path> paths() {
        return pages.stream().map(SharedSegment::path).toList();
    }

    /** {@return the entries of the pages made (the reader) or opened (the watcher) so far} */
    long capacity() {
        return capacity;
    }

    /**
     * Adds a page of twice the last one's entries (the reader only).
     *
     * @throws org.cudaipc4j.coord.SharedSegmentException when {@code /dev/shm} has no room for it
     */
    void grow() {
        long entries = (long) pages.getLast().memory().get(JAVA_INT, 12) * 2;
        if (!reader || capacity + entries > Integer.MAX_VALUE) {
            throw new IllegalStateException("a torch lease book grows only in its reader, up to 2^31 entries");
        }
        SharedSegment page = newPage(entries);
        byte[] name = page.name().getBytes(StandardCharsets.US_ASCII);
        MemorySegment last = pages.getLast().memory();
        MemorySegment.copy(name, 0, last, JAVA_BYTE, NEXT_NAME, name.length);
        INT.setRelease(last, (long) NEXT_LENGTH, name.length);
        pages.add(page);
        capacity += entries;
    }

    /** Records a held slot in entry {@code i} (free or released). */
    void hold(int i, String counterName, long slot) {
        byte[] name = counterName.getBytes(StandardCharsets.UTF_8);
        if (name.length > NAME_MAX) {
            throw new IllegalArgumentException("torch counter name longer than " + NAME_MAX + " bytes: " + counterName);
        }
        MemorySegment m = page(i);
        long e = entry(i);
        m.set(JAVA_INT, e + 4, name.length);
        m.set(JAVA_LONG, e + 8, slot);
        MemorySegment.copy(name, 0, m, JAVA_BYTE, e + 16, name.length);
        INT.setRelease(m, e, HELD);
    }

    /** Marks entry {@code i} released; true when it was held (so exactly one caller gives its slot back). */
    boolean markReleased(int i) {
        return INT.compareAndSet(page(i), entry(i), HELD, RELEASED);
    }

    int state(int i) {
        return (int) INT.getAcquire(page(i), entry(i));
    }

    /** The held entries of every page (the watcher opens the pages it has not mapped yet): name and slot each. */
    List<Held> held() {
        openLinkedPages();
        List<Held> out = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            if (state(i) == HELD) {
                MemorySegment m = page(i);
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

    private void openLinkedPages() {
        while (true) {
            MemorySegment last = pages.getLast().memory();
            int len = (int) INT.getAcquire(last, (long) NEXT_LENGTH);
            if (len <= 0 || len > NEXT_NAME_MAX || pages.size() == 31) {
                return;
            }
            byte[] name = new byte[len];
            MemorySegment.copy(last, JAVA_BYTE, NEXT_NAME, name, 0, len);
            SharedSegment page = openPage(new String(name, StandardCharsets.US_ASCII));
            pages.add(page);
            capacity += page.memory().get(JAVA_INT, 12);
        }
    }

    void markClosed() {
        INT.setRelease(pages.getFirst().memory(), 24L, 1);
    }

    boolean closed() {
        return (int) INT.getAcquire(pages.getFirst().memory(), 24L) == 1;
    }

    long readerPid() {
        return pages.getFirst().memory().get(JAVA_LONG, 16);
    }

    /** The page of entry {@code i}: page k starts at {@code first * (2^k - 1)}. */
    private MemorySegment page(int i) {
        return pages.get(pageIndex(i)).memory();
    }

    private int pageIndex(int i) {
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("lease entry " + i + " of " + capacity);
        }
        return 63 - Long.numberOfLeadingZeros(i / first + 1);
    }

    private long entry(int i) {
        int k = pageIndex(i);
        return HEADER + (long) ENTRY * (i - first * ((1L << k) - 1));
    }

    /** Unmaps every page; the reader's (creator's) close also removes their files. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (SharedSegment s : pages) {
            try {
                s.close();
            } catch (RuntimeException e) {
                failure = Closing.firstOf(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
