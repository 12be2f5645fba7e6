package org.cudaipc4j.coord;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Who still maps an exporter's memory, across processes: a table in a shared-memory segment that an importer signs
 * into when it maps an export ({@link #hold}) and out of when it unmaps it ({@link Hold#close}), so that the
 * exporter frees only memory that nobody maps ({@link #awaitReleased}). A holder that dies does not pin the memory:
 * its entries count only while its process lives (checked by pid and process start time, so a reused pid does not
 * count either). Pids are this PID namespace's: every process of a table must see the others' pids.
 *
 * <p>The exporter {@linkplain #create creates} the table and sends its {@link #name()} to importers with the
 * export (for instance beside a memory descriptor); each importer {@linkplain #open opens} it. Exports are named by
 * a {@code long} key of the exporter's choice, such as the memory descriptor's export id. Closing the table unmaps
 * it; the creator's close also removes its name.
 *
 * <p>Each entry is {@code state, pid, start time, key}. Its 64-bit state word holds the state (free, claimed, held),
 * a generation that each claim advances, and the pid of the process that claimed it: an importer claims a free entry
 * by compare-and-set of that word, readers take the entry's fields only when the word is the same before and after,
 * and an entry is freed (by its holder, or for a dead holder or claimer by anyone) only by compare-and-set of the
 * exact word it was read with. So entries are never torn, no stale reader or late close frees an entry that was
 * taken again meanwhile, and a process that dies between its claim and its hold does not keep the entry.
 *
 * <h2>Layout</h2>
 * Described once as {@link MemoryLayout}s ({@code HEADER}, {@code ENTRY}); offsets and var handles are taken from
 * them. Integers are native (little-endian) and naturally aligned. Python signs in through the same layout
 * ({@code docs/interop-format.md}, "The holder table"), so it does not change without a new magic.
 * <pre>
 *  +-----------------------------------------------+ 0   header
 *  | magic "CPHOLDS2" (written last, with release) | 0
 *  | capacity (int)                                | 8
 *  | (pad to 64)                                   | 12
 *  +-----------------------------------------------+ 64  entry 0, entry 1, ... entry capacity-1, 32 bytes each
 *  entry: state word | pid | start time (epoch ms) | key     (at 0, 8, 16, 24)
 * </pre>
 */
public final class ExportHolders implements AutoCloseable {
    private static final long MAGIC = 0x3253_444c_4f48_5043L; // "CPHOLDS2"
    /** The table's header: its magic, then the number of entries that follow it. */
    static final StructLayout HEADER = MemoryLayout.structLayout(
            JAVA_LONG.withName("magic"),
            JAVA_INT.withName("capacity"),
            MemoryLayout.paddingLayout(52)).withName("ExportHoldersHeader");
    /** One entry: the state word that claims it, then who holds what since when. */
    static final StructLayout ENTRY = MemoryLayout.structLayout(
            JAVA_LONG.withName("state"),
            JAVA_LONG.withName("pid"),
            JAVA_LONG.withName("startMillis"),
            JAVA_LONG.withName("key")).withName("ExportHoldersEntry");
    private static final VarHandle MAGIC_WORD = HEADER.varHandle(groupElement("magic"));
    private static final VarHandle CAPACITY = HEADER.varHandle(groupElement("capacity"));
    private static final VarHandle STATE_WORD = ENTRY.varHandle(groupElement("state"));
    private static final VarHandle PID = ENTRY.varHandle(groupElement("pid"));
    private static final VarHandle START_MILLIS = ENTRY.varHandle(groupElement("startMillis"));
    private static final VarHandle KEY = ENTRY.varHandle(groupElement("key"));
    private static final int FREE = 0;
    private static final int CLAIMED = 1;
    private static final int HELD = 2;
    /** The state's bits of an entry's state word; the rest of its low 32 bits is the generation. */
    private static final int STATE = 3;
    /** The claimer's pid is the state word's high 32 bits (Linux pids are below 2^22). */
    private static final int CLAIMER_SHIFT = 32;
    /** The most entries a table can have: simultaneous holds of all exports by all importers. */
    public static final int MAX_ENTRIES = 1 << 16;

    private final SharedSegment segment;
    private final MemorySegment memory;
    private final int capacity;
    /** This process's holds in the table, released when the table is closed. */
    private final Set<Hold> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private ExportHolders(SharedSegment segment, int capacity) {
        this.segment = segment;
        this.memory = segment.memory();
        this.capacity = capacity;
    }

    /**
     * {@return a new table for up to {@code capacity} simultaneous holds, in a fresh shared-memory segment}
     *
     * @param capacity the number of entries
     */
    public static ExportHolders create(int capacity) {
        return create(capacity, () -> SharedSegment.newName("holders"));
    }

    /** As {@link #create(int)}, under the first free name of {@code names}: tests give names that are taken. */
    static ExportHolders create(int capacity, Supplier<String> names) {
        if (capacity < 1 || capacity > MAX_ENTRIES) {
            throw new IllegalArgumentException("capacity must be between 1 and " + MAX_ENTRIES + ", got " + capacity);
        }
        SharedSegment segment = SharedSegment.createFresh(names, sizeFor(capacity), true);
        MemorySegment m = segment.memory();
        CAPACITY.set(m, 0L, capacity);
        MAGIC_WORD.setRelease(m, 0L, MAGIC);
        return new ExportHolders(segment, capacity);
    }

    /**
     * Opens a table another process created.
     *
     * @param name the name the creator's {@link #name()} gave
     * @return the open table
     * @throws CoordinationException when {@code name} is no table (missing, too small, another format)
     */
    public static ExportHolders open(String name) {
        SharedSegment segment = SharedSegment.open(name);
        try {
            MemorySegment m = segment.memory();
            if (m.byteSize() < HEADER.byteSize() || (long) MAGIC_WORD.getAcquire(m, 0L) != MAGIC) {
                throw new CoordinationException("shared-memory segment " + name + " is not an export holder table");
            }
            int capacity = (int) CAPACITY.get(m, 0L);
            if (capacity < 1 || capacity > MAX_ENTRIES || m.byteSize() < sizeFor(capacity)) {
                throw new CoordinationException("export holder table " + name + " is damaged (capacity " + capacity
                        + " in " + m.byteSize() + " bytes)");
            }
            return new ExportHolders(segment, capacity);
        } catch (RuntimeException e) {
            segment.close();
            throw e;
        }
    }

    /** {@return the name an importer {@linkplain #open opens}} */
    public String name() {
        return segment.name();
    }

    /** {@return how many simultaneous holds the table has room for} */
    public int capacity() {
        return capacity;
    }

    /**
     * This process holds export {@code key} until the returned hold is closed (or this process ends).
     *
     * @param key the export's key
     * @return the hold, owned by the caller
     * @throws CoordinationException when every entry is taken by a live holder
     */
    public Hold hold(long key) {
        if (closed) {
            throw new IllegalStateException("export holder table " + name() + " is closed");
        }
        long pid = Pids.self();
        long start = SelfStart.MILLIS;
        for (int attempt = 0; attempt < 2; attempt++) {
            for (int i = 0; i < capacity; i++) {
                long at = offset(i);
                long word = (long) STATE_WORD.getAcquire(memory, at);
                if (state(word) != FREE) {
                    continue;
                }
                long claimed = word(pid, generation(word) + STATE + 1, CLAIMED); // the next generation
                if (STATE_WORD.compareAndSet(memory, at, word, claimed)) {
                    PID.set(memory, at, pid);
                    START_MILLIS.set(memory, at, start);
                    KEY.set(memory, at, key);
                    long held = word(pid, generation(claimed), HELD);
                    // A claim another process took for a dead one's (a pid it cannot see) is lost: claim again.
                    if (STATE_WORD.compareAndSet(memory, at, claimed, held)) {
                        Hold hold = new Hold(this, i, key, held);
                        open.add(hold);
                        return hold;
                    }
                }
            }
            reclaimDead();
        }
        throw new CoordinationException("export holder table " + name() + " is full: " + capacity
                + " holds by live processes");
    }

    /**
     * {@return the pids of the live processes that hold export {@code key}, one per hold}
     *
     * @param key the export's key
     */
    public List<Long> holders(long key) {
        return holders(Set.of(key)).getOrDefault(key, List.of());
    }

    /**
     * {@return the pids of the live processes that hold each of {@code keys}, one per hold, by key in the table's
     * order; a key nobody holds is absent} One pass over the table however many keys are asked for: an exporter of
     * thousands of exports (a state dict's tensors) asks once, not once per export; and each holder's liveness is
     * read once in it, however many exports it holds. Entries of dead holders met on the way are freed.
     *
     * @param keys the exports' keys
     */
    public Map<Long, List<Long>> holders(Set<Long> keys) {
        Objects.requireNonNull(keys, "keys");
        Map<Long, List<Long>> pids = new LinkedHashMap<>();
        Map<Long, Long> starts = new HashMap<>(); // pid -> its start time now, -1 when it has ended
        for (int i = 0; i < capacity; i++) {
            Entry e = read(i);
            if (e == null || !keys.contains(e.key())) {
                continue;
            }
            long start = starts.computeIfAbsent(e.pid(), p -> Pids.isAlive(p) ? Pids.startMillis(p) : -1L);
            if (start != -1 && start == e.startTime()) {
                pids.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e.pid());
            } else {
                free(i, e.word());
            }
        }
        return pids;
    }

    /**
     * Waits until no live process holds export {@code key}: then the exporter may free it.
     *
     * @param key the export's key
     * @param deadline when to give up
     * @throws CoordinationException at the deadline, naming the limit and the pids that still hold it
     */
    public void awaitReleased(long key, Deadline deadline) {
        awaitReleased(Set.of(key), deadline);
    }

    /**
     * Waits until no live process holds any of {@code keys}: then the exporter may free them. Each look is one pass
     * over the table ({@link #holders(Set)}).
     *
     * @param keys the exports' keys
     * @param deadline when to give up
     * @throws CoordinationException at the deadline, naming the limit, how many are still held, and the first of them
     *                               with the pids that hold it
     */
    public void awaitReleased(Set<Long> keys, Deadline deadline) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(deadline, "deadline");
        IdleStrategy idle = IdleStrategy.backoff(0, 0, 10_000, 5_000_000); // parks of 10 us, doubling up to 5 ms
        while (true) {
            Map<Long, List<Long>> left = holders(keys);
            if (left.isEmpty()) {
                return;
            }
            if (deadline.hasPassed()) {
                Map.Entry<Long, List<Long>> first = left.entrySet().iterator().next();
                List<Long> pids = first.getValue();
                String what = keys.size() == 1 ? "export " + first.getKey()
                        : left.size() + " of " + keys.size() + " exports";
                throw new CoordinationException(deadline.timedOut(what + " to be released") + ": "
                        + (keys.size() == 1 ? "" : "export " + first.getKey() + " ") + "still held by pid"
                        + (pids.size() == 1 ? " " : "s ") + pids.stream().map(String::valueOf)
                                .reduce((a, b) -> a + ", " + b).orElseThrow());
            }
            idle.idle();
        }
    }

    /**
     * Frees the entries of dead holders, and those claimed by processes that died before they held them (checked by
     * pid alone: a claimer's pid that was reused keeps its entry until that process ends).
     */
    private void reclaimDead() {
        for (int i = 0; i < capacity; i++) {
            long word = (long) STATE_WORD.getAcquire(memory, offset(i));
            if (state(word) == CLAIMED && !Pids.isAlive(claimer(word))) {
                free(i, word);
                continue;
            }
            Entry e = read(i);
            if (e != null && !isLive(e.pid(), e.startTime())) {
                free(i, e.word());
            }
        }
    }

    /** A held entry as read: its state word and fields. */
    private record Entry(long word, long pid, long startTime, long key) {}

    /** Entry {@code i} when it is held, its fields read under one unchanged state word; else null. */
    private Entry read(int i) {
        long at = offset(i);
        while (true) {
            long word = (long) STATE_WORD.getAcquire(memory, at);
            if (state(word) != HELD) {
                return null;
            }
            long pid = (long) PID.get(memory, at);
            long start = (long) START_MILLIS.get(memory, at);
            long key = (long) KEY.get(memory, at);
            VarHandle.acquireFence(); // the fields are read before the word is read again
            if ((long) STATE_WORD.getAcquire(memory, at) == word) {
                return new Entry(word, pid, start, key);
            }
        }
    }

    /** Frees entry {@code i} unless its state word changed since it was read as {@code word}. */
    private void free(int i, long word) {
        STATE_WORD.compareAndSet(memory, offset(i), word, word(0, generation(word), FREE));
    }

    private static long word(long claimer, int generation, int state) {
        return claimer << CLAIMER_SHIFT | Integer.toUnsignedLong(generation | state);
    }

    private static int state(long word) {
        return (int) word & STATE;
    }

    private static int generation(long word) {
        return (int) word & ~STATE;
    }

    private static long claimer(long word) {
        return word >>> CLAIMER_SHIFT;
    }

    /** Where entry {@code entry} starts. */
    static long offset(int entry) {
        return HEADER.byteSize() + entry * ENTRY.byteSize();
    }

    /** The size of a table of {@code capacity} entries: the header, then the entries. */
    static long sizeFor(int capacity) {
        return offset(capacity);
    }

    private static boolean isLive(long pid, long startTime) {
        return Pids.isAlive(pid) && Pids.startMillis(pid) == startTime;
    }

    /** This process's start time, read once. */
    private static final class SelfStart {
        static final long MILLIS = Pids.startMillis(Pids.self());
    }

    /** Ends this process's holds, unmaps the table; the creator also removes its name. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        for (Hold hold : open) {
            hold.close();
        }
        closed = true;
        segment.close();
    }

    /** One process's hold of one export; closing it (once or more) signs out. */
    public static final class Hold implements AutoCloseable {
        private final ExportHolders table;
        private final int entry;
        private final long key;
        /** The entry's state word while this hold has it. */
        private final long word;
        private boolean closed;

        private Hold(ExportHolders table, int entry, long key, long word) {
            this.table = table;
            this.entry = entry;
            this.key = key;
            this.word = word;
        }

        /** {@return the key of the export this hold holds} */
        public long key() {
            return key;
        }

        @Override
        public void close() {
            synchronized (table) {
                if (!closed && !table.closed) {
                    // Only the entry this hold took: if it was freed and taken again meanwhile, it is not ours.
                    table.free(entry, word);
                    table.open.remove(this);
                }
                closed = true;
            }
        }
    }
}
