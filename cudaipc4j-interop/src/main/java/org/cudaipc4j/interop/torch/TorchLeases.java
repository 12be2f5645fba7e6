package org.cudaipc4j.interop.torch;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.interop.OpenPhases;

/**
 * A reader's side of torch's reference-counter contract: one {@link Lease} per share opened here, the slot given
 * back exactly once when the last lease over its storage closes, a further share of a storage already open given
 * back at once (as torch's reader does on a hit in its cache; see {@link TorchStorageKey}), and - beyond torch -
 * every slot still held given back by a {@link LeaseWatcher} process within a few seconds when this JVM dies.
 *
 * <p>Each counter file is mapped from the first lease that names it until the last one is released (the last file
 * released stays mapped for the shares that follow until another takes its place), without touching its process
 * count: a reader that counted itself there and died would leave the file in
 * {@code /dev/shm} for good.
 *
 * <p>{@link #start()} returns at once and starts the watcher (a small JVM) on a thread of its own; the first lease
 * waits until the watcher watches (it has seen this process is its parent), so no slot is taken unwatched. Start the
 * leases early, before CUDA's initialisation and the descriptors' parse, and the watcher's start runs beside them.
 * Thread-safe.
 * {@link #close()} gives back everything still held and ends the watcher; idempotent.
 *
 * <p>No count of shares open at once is fixed: the book grows (see {@link LeaseBook}) by doubling, so that a share
 * costs 128 bytes of {@code /dev/shm} and about 80 bytes of heap while it is open.
 */
public final class TorchLeases implements AutoCloseable {
    private static final long WATCHER_START_SECONDS = 60;
    private static final long WATCHER_STOP_SECONDS = 10;

    private final Path counterDirectory;
    private final LeaseBook book;
    /**
     * The watcher's process, and its "ready" once it has seen this process is its parent (null when its output ended
     * first), made and read on threads of their own beside what the reader does before its first open; both null when
     * unwatched. No slot is taken before it watches ({@link #awaitWatcher}).
     */
    private final CompletableFuture<Process> watcherMade;
    private final CompletableFuture<String> watcherReady;
    private boolean watching;
    private final Map<TorchStorageKey, Entry> open = new HashMap<>();
    private final Map<String, MappedFile> files = new HashMap<>();
    /**
     * The last counter file no lease needed any more, left mapped (and in {@code files}) for the shares that follow:
     * a producer that shares the same storages again (a weight-sync round) names a new counter file for thousands
     * of shares in a row, each a cache hit that only gives its slot back, and mapping the file anew for each took
     * most of a hit's time. Closed when another takes its place, and by {@link #close()}.
     */
    private MappedFile idle;
    /** Book entries released and free to take again; entries from {@code fresh} on were never taken. */
    private int[] free = new int[16];
    private int freeCount;
    private int fresh;
    private boolean closed;

    private TorchLeases(Path counterDirectory, LeaseBook book, CompletableFuture<Process> watcherMade) {
        this.counterDirectory = counterDirectory;
        this.book = book;
        this.watcherMade = watcherMade;
        this.watcherReady = watcherMade == null ? null
                : watcherMade.thenApplyAsync(TorchLeases::readyLine, TorchLeases::onOwnThread);
    }

    private static void onOwnThread(Runnable r) {
        Thread.ofPlatform().daemon().name("cudaipc4j-lease-watcher-start").start(r);
    }

    /**
     * Leases of torch's counter files in {@code /dev/shm}, watched.
     *
     * @return the leases, owned by the caller
     */
    public static TorchLeases start() {
        return start(TorchCounterFile.DEFAULT_DIRECTORY, true);
    }

    /**
     * Leases of counter files in {@code counterDirectory} (torch's are in {@code /dev/shm}); with a watcher process
     * when {@code watch}.
     *
     * @param counterDirectory the directory of the counter files
     * @param watch whether to start a watcher process that gives the slots back if this process dies
     * @return the leases, owned by the caller
     * @throws TorchInteropException when the watcher cannot be started
     */
    public static TorchLeases start(Path counterDirectory, boolean watch) {
        return start(counterDirectory, watch, LeaseBook.FIRST_PAGE);
    }

    /**
     * As {@link #start(Path, boolean)}, the book's first page sized for {@code firstPage} storages (it grows past
     * them as needed): tests of the book's growth.
     */
    static TorchLeases start(Path counterDirectory, boolean watch, int firstPage) {
        LeaseBook book = LeaseBook.create(firstPage);
        if (!watch) {
            return new TorchLeases(counterDirectory, book, null);
        }
        Path counters = counterDirectory.toAbsolutePath();
        try {
            return new TorchLeases(counterDirectory, book, CompletableFuture.supplyAsync(
                    () -> startWatcher(book, counters), TorchLeases::onOwnThread));
        } catch (RuntimeException | Error e) { // no thread to start it on
            book.close();
            throw e;
        }
    }

    /**
     * {@return {@code command} less the reader's start-up cache and heap sizes} A reader's cache
     * ({@code -XX:AOTCache}, {@code -XX:AOTMode}, {@code -XX:SharedArchiveFile}) holds its own class path, not the
     * watcher's: started with it, the watcher's JVM would complain on its standard output, where the watcher says it
     * is ready, or with {@code -XX:AOTMode=on} refuse to start. The watcher sets its own small heap: a reader's
     * ({@code -Xms}, {@code -Xmx}, {@code -XX:InitialHeapSize}, {@code -XX:MinHeapSize}, {@code -XX:MaxHeapSize},
     * {@code -XX:SoftMaxHeapSize}) would reserve a service's heap for it, or, with a size above the watcher's
     * maximum, keep it from starting. A reader's JVM logs ({@code -Xlog}, {@code -Xloggc}) are the reader's: the
     * watcher would write into its files, or print on its standard output.
     *
     * @param command a JVM's command line
     */
    static List<String> watcherOptions(List<String> command) {
        List<String> out = new ArrayList<>(command);
        out.removeIf(a -> a.startsWith("-XX:AOTCache=") || a.startsWith("-XX:AOTMode=")
                || a.startsWith("-XX:SharedArchiveFile=") || a.startsWith("-Xms") || a.startsWith("-Xmx")
                || a.startsWith("-XX:InitialHeapSize=") || a.startsWith("-XX:MinHeapSize=")
                || a.startsWith("-XX:MaxHeapSize=") || a.startsWith("-XX:SoftMaxHeapSize=")
                || a.startsWith("-Xlog") || a.startsWith("-Xloggc"));
        return out;
    }

    private static Process startWatcher(LeaseBook book, Path counters) {
        // Small and quick: the watcher loads a handful of classes and sleeps. No collector is chosen, as the
        // inherited options may name one.
        List<String> cmd = watcherOptions(JvmCommand.base());
        // The watcher needs only this module, the coordination library and the libraries' base: their own locations,
        // which also holds where this JVM's class path does not name them (a test launcher's class loader, say).
        int cp = cmd.indexOf("-cp");
        String own = watcherClassPath();
        if (cp >= 0 && own != null) {
            cmd.set(cp + 1, own);
        }
        cmd.addAll(List.of("-Xmx32m", "-Xss512k", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                LeaseWatcher.class.getName(), book.name(), counters.toString(),
                Long.toString(ProcessHandle.current().pid())));
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
            // Options a JVM takes from its environment are the reader's (its heap, its start-up cache): kept from
            // the watcher's JVM as those of its command line are (watcherOptions).
            pb.environment().keySet().removeAll(List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"));
            return pb.start();
        } catch (IOException e) {
            throw new TorchInteropException("cannot start the torch lease watcher (" + cmd.getFirst() + "): " + e, e);
        }
    }

    /**
     * {@return the watcher's "ready", or null when its output ends first} Lines before it are the JVM's own (an
     * option of the reader's it inherited that logs to standard output): skipped.
     */
    private static String readyLine(Process p) {
        BufferedReader out = p.inputReader(StandardCharsets.UTF_8);
        try {
            String l;
            do {
                l = out.readLine();
            } while (l != null && !l.equals("ready"));
            return l;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Waits until the watcher watches, as the first lease does; returns at once when it does already, or when these
     * leases are unwatched. For a reader that would rather wait at its start than at its first open.
     *
     * @throws TorchInteropException when the watcher did not start (it is ended)
     */
    public synchronized void awaitWatching() {
        if (watcherMade != null && !watching) {
            awaitWatcher();
        }
    }

    /** Waits, once, until the watcher watches; a watcher that does not is ended and refused. */
    private void awaitWatcher() {
        String line;
        try {
            line = watcherReady.get(WATCHER_START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof TorchInteropException t ? t
                    : new TorchInteropException("cannot start the torch lease watcher: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            Process p = watcherMade.getNow(null);
            if (p != null) {
                p.destroyForcibly();
            }
            throw new TorchInteropException("the torch lease watcher did not start within " + WATCHER_START_SECONDS
                    + " s; its errors are on this process's stderr");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TorchInteropException("interrupted while the torch lease watcher started");
        }
        if (!"ready".equals(line)) {
            Process p = watcherMade.join();
            p.destroyForcibly();
            throw new TorchInteropException("the torch lease watcher did not start (exit " + exitOf(p) + "); its"
                    + " errors are on this process's stderr");
        }
        watching = true;
    }

    /** {@return the watcher's process once made, waiting for its making; null when unwatched or never made} */
    private Process watcherProcess() {
        if (watcherMade == null) {
            return null;
        }
        try {
            return watcherMade.get(WATCHER_START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Where this module's, the coordination library's and the libraries' base's classes were loaded from, or null
     * when unknown.
     */
    private static String watcherClassPath() {
        try {
            Set<String> locations = new LinkedHashSet<>();
            for (Class<?> c : List.of(LeaseWatcher.class, JvmCommand.class, Libc.class)) {
                locations.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
            }
            return String.join(java.io.File.pathSeparator, locations);
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    private static String exitOf(Process p) {
        try {
            return Integer.toString(p.waitFor());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** {@return the watcher's pid, empty when unwatched} */
    public OptionalLong watcherPid() {
        Process watcher = watcherProcess();
        return watcher == null ? OptionalLong.empty() : OptionalLong.of(watcher.pid());
    }

    /** {@return the directory of the counter files} */
    Path counterDirectory() {
        return counterDirectory;
    }

    /** {@return the file that lists the held slots for the watcher (removed at close)} */
    public Path bookPath() {
        return book.path();
    }

    /**
     * Takes the lease of {@code share}: its slot is held until the returned lease closes, or given back at once
     * when the same storage is open here already ({@link Lease#cacheHit()}).
     *
     * @param share the share to open
     * @return the lease, owned by the caller
     * @throws TorchInteropException when the counter file is missing (producer gone) or not torch's, or the slot is
     *                               0 (given back already: a share may be opened once)
     * @throws IllegalArgumentException for an empty storage (it has no counter)
     */
    public Lease acquire(TorchShare share) {
        if (share.isEmpty()) {
            throw new IllegalArgumentException("an empty storage has no reference counter to lease");
        }
        return acquire(TorchStorageKey.of(share), share.refCounterFile(), share.refCounterSlot());
    }

    /**
     * As {@link #acquire(TorchShare)} with the storage's key, counter name and slot given.
     *
     * @param key the storage's key
     * @param counterName the counter file's name
     * @param slot the slot in it
     * @return the lease, owned by the caller
     */
    public Lease acquire(TorchStorageKey key, String counterName, long slot) {
        return acquire(key, counterName, slot, null);
    }

    /** As {@link #acquire(TorchStorageKey, String, long)}, timing the counter file and the book in {@code phases}. */
    synchronized Lease acquire(TorchStorageKey key, String counterName, long slot, OpenPhases phases) {
        if (closed) {
            throw new IllegalStateException("torch leases are closed");
        }
        if (watcherMade != null && !watching) {
            awaitWatcher();
        }
        if (!files.containsKey(counterName)) {
            TorchCounterFile.checkName(counterName); // a mapped file's name was checked when it was mapped
        }
        Entry hit = open.get(key);
        if (hit != null) {
            // The new share's own slot goes back at once; its counter file is mostly the one mapped already.
            ReleaseOutcome now;
            MappedFile f;
            try {
                f = map(counterName, true);
            } catch (TorchInteropException e) {
                if (!java.nio.file.Files.exists(TorchCounterFile.pathOf(counterDirectory, counterName))) {
                    hit.users++;
                    return new Lease(this, hit, true, ReleaseOutcome.PRODUCER_GONE);
                }
                throw e;
            }
            try {
                now = f.file.giveBack(slot); // on the open's path: no look for the file, which the open made
            } finally {
                unmap(f);
            }
            hit.users++;
            OpenPhases.lap(phases, OpenPhases.Phase.COUNTER);
            return new Lease(this, hit, true, now);
        }
        MappedFile file = map(counterName, false);
        try {
            long value = file.file.slot(slot);
            if (value <= 0) {
                throw new TorchInteropException("slot " + slot + " of torch reference-counter file " + counterName
                        + " is " + value + ": this share was given back already (each share may be opened once; a"
                        + " second reader needs its own share)");
            }
            OpenPhases.lap(phases, OpenPhases.Phase.COUNTER);
            int index = freeIndex();
            book.hold(index, counterName, slot);
            Entry e = new Entry(key, counterName, slot, index, file);
            open.put(key, e);
            OpenPhases.lap(phases, OpenPhases.Phase.BOOK);
            return new Lease(this, e, false, null);
        } catch (RuntimeException e) {
            unmap(file);
            throw e;
        }
    }

    /**
     * The counter file {@code name}, mapped, with one more user. The {@link #idle} file serves a cache hit as it is;
     * a new lease maps its file anew, so that a file the producer removed meanwhile is found gone.
     */
    private MappedFile map(String name, boolean forHit) {
        MappedFile f = files.get(name);
        if (f != null && f == idle) {
            idle = null;
            if (!forHit) {
                files.remove(name);
                f.file.close();
                f = null;
            }
        }
        if (f == null) {
            f = new MappedFile(TorchCounterFile.open(counterDirectory, name));
            files.put(name, f);
        }
        f.users++;
        return f;
    }

    /** One user less of {@code f}; a file nobody uses becomes the {@link #idle} one, closing the one before. */
    private void unmap(MappedFile f) {
        if (--f.users == 0) {
            closeIdle();
            idle = f;
        }
    }

    private void closeIdle() {
        if (idle != null) {
            files.remove(idle.file.name());
            idle.file.close();
            idle = null;
        }
    }

    /** A book entry to hold: one given back before, else the next never taken, the book grown for it if full. */
    private int freeIndex() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (fresh == book.capacity()) {
            book.grow();
        }
        return fresh++;
    }

    synchronized ReleaseOutcome release(Entry e) {
        if (e.done) {
            return ReleaseOutcome.ALREADY_RELEASED; // given back by close()
        }
        if (--e.users > 0) {
            return ReleaseOutcome.STILL_OPEN;
        }
        return giveBack(e);
    }

    private ReleaseOutcome giveBack(Entry e) {
        e.done = true;
        open.remove(e.key);
        if (freeCount == free.length) {
            free = java.util.Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = e.index;
        try {
            // Marked before the decrement: a kill in between leaks this slot rather than giving it back twice.
            return book.markReleased(e.index) ? e.file.file.decrement(e.slot) : ReleaseOutcome.ALREADY_RELEASED;
        } finally {
            unmap(e.file);
        }
    }

    /** {@return the number of storages open through these leases} */
    public synchronized int openStorages() {
        return open.size();
    }

    /** Gives back every slot still held, ends the watcher and removes the book. Idempotent. */
    @Override
    public void close() {
        List<Entry> left;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            left = new ArrayList<>(open.values());
        }
        RuntimeException failure = null;
        for (Entry e : left) {
            try {
                synchronized (this) {
                    giveBack(e);
                }
            } catch (RuntimeException ex) {
                failure = Closing.firstOf(failure, ex);
            }
        }
        synchronized (this) {
            closeIdle();
        }
        book.markClosed();
        Process watcher = watcherProcess();
        if (watcher == null && watcherMade != null) {
            // Not made yet (an interrupt, or its making stalled): ended as soon as it is.
            watcherMade.thenAccept(Process::destroyForcibly);
        }
        if (watcher != null) {
            try {
                watcher.getOutputStream().close(); // the watcher's signal to end
            } catch (IOException ex) {
                failure = Closing.firstOf(failure, new TorchInteropException("closing the torch lease watcher's input: "
                        + ex, ex)); // it is still waited for, then killed
            }
            try {
                if (!watcher.waitFor(WATCHER_STOP_SECONDS, TimeUnit.SECONDS)) {
                    watcher.destroyForcibly();
                    failure = Closing.firstOf(failure, new TorchInteropException("the torch lease watcher " + watcher.pid()
                            + " did not end within " + WATCHER_STOP_SECONDS + " s; killed"));
                }
                watcher.getInputStream().close();
            } catch (IOException ex) {
                failure = Closing.firstOf(failure, new TorchInteropException("closing the torch lease watcher: " + ex, ex));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                watcher.destroyForcibly();
            }
        }
        try {
            book.close();
        } catch (RuntimeException ex) {
            failure = Closing.firstOf(failure, ex);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** One storage open here: its held slot, shared by every lease over it. */
    static final class Entry {
        final TorchStorageKey key;
        final String counterName;
        final long slot;
        final int index;
        final MappedFile file;
        int users = 1;
        boolean done;

        Entry(TorchStorageKey key, String counterName, long slot, int index, MappedFile file) {
            this.key = key;
            this.counterName = counterName;
            this.slot = slot;
            this.index = index;
            this.file = file;
        }
    }

    private static final class MappedFile {
        final TorchCounterFile file;
        int users;

        MappedFile(TorchCounterFile file) {
            this.file = file;
        }
    }
}
