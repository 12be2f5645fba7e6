package org.cudaipc4j.interop.torch;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.FreshName;
import org.cudaipc4j.interop.SharedNames;

/**
 * A torch producer's reference-counter file, mapped the way a reader must map it: without touching the process
 * count at its start; or made by a Java producer of torch's tuples ({@link TorchTupleExport}) as torch's producer
 * makes one. Torch makes it in {@code GetNewRefCountedSentData} ({@code torch/csrc/CudaIPCTypes.cpp}) with
 * {@code RefcountedMapAllocator} ({@code ALLOCATOR_MAPPED_SHAREDMEM | ALLOCATOR_MAPPED_EXCLUSIVE}, a POSIX
 * shared-memory object, mode 0600) of {@code sizeof(int64_t) * CUDA_IPC_REF_COUNTER_FILE_SIZE} bytes behind the
 * allocator's 64-byte header:
 * <pre>
 *   0      int32  processes mapping the file the torch way (the last one to unmap unlinks it): never touched here
 *   4..63  unused (the header is TH_ALLOC_ALIGNMENT = 64 bytes)
 *   64     int64  slot 0: 1 from the producer's _share_cuda_(), -1 from the one reader's release
 *   ...
 *   64 + 8 * 9999  slot 9999                                      80064 bytes in all
 * </pre>
 * The producer keeps a freed storage in its limbo while its slot is above 0 ({@code CudaIPCSentDataLimbo::collect}).
 * torch's reader ({@code THPStorage_releaseIPCCounter}, {@code torch/csrc/StorageSharing.cpp}) opens the file
 * with {@code ALLOCATOR_MAPPED_NOCREATE}, does {@code -= 1} on the slot, not atomically, and swallows the error when
 * the file is gone. Here the decrement is a compare-and-set loop that never goes below 0: a second reader of one
 * share (which torch's contract forbids) cannot drive the slot negative, which torch through 2.11 reads as a huge
 * unsigned count and pins the block for good (pytorch #149187).
 *
 * <p>Thread-safe; {@link #close()} unmaps (idempotent).
 */
public final class TorchCounterFile implements AutoCloseable {
    /** {@code CUDA_IPC_REF_COUNTER_FILE_SIZE}: slots per file. */
    public static final int SLOTS = 10000;
    /** The allocator's header before the slots. */
    public static final int HEADER_BYTES = 64;
    /** The file's size. */
    public static final long FILE_BYTES = HEADER_BYTES + 8L * SLOTS;
    /** Where POSIX shared memory lives ({@code shm_open}). */
    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm");

    private static final Pattern NAME = SharedNames.REF_COUNTER_FILE;
    private static final VarHandle SLOT = JAVA_LONG.varHandle();
    private static final VarHandle COUNT = JAVA_INT.varHandle();
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private final String name;
    private final Path path;
    private final Arena arena;
    private final MemorySegment memory;

    private TorchCounterFile(String name, Path path, Arena arena, MemorySegment memory) {
        this.name = name;
        this.path = path;
        this.arena = arena;
        this.memory = memory;
    }

    /**
     * Checks a counter file's name as torch gives it: {@code /torch_<pid>_<random>_<n>} ({@code
     * GetNewRefCountedSentData}; older torch wrote no {@code _<n>}). Nothing else is ever mapped and decremented: a
     * name from another process must not reach other files in {@code /dev/shm}.
     *
     * @param name the name as torch gives it
     * @throws IllegalArgumentException naming the problem
     */
    public static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a torch reference-counter name: '" + name + "' (torch's are"
                    + " /torch_<pid>_<random>_<n>)");
        }
    }

    /** The file of {@code name} under {@code directory}. */
    static Path pathOf(Path directory, String name) {
        checkName(name);
        return directory.resolve(name.substring(1));
    }

    /**
     * Maps the counter file {@code name} (torch's {@code ref_counter_handle}) under {@code directory}, leaving its
     * process count alone.
     *
     * @param directory the directory of the counter files
     * @param name the name as torch gives it
     * @return the mapped file, owned by the caller
     * @throws TorchInteropException when it is missing (the producer has exited), a link or a directory, or not
     *                               laid out as torch's (its size)
     */
    public static TorchCounterFile open(Path directory, String name) {
        Path path = pathOf(directory, name);
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS))) {
            // No stat for the file's type: a link is refused by the open, a directory by its write mode, and a fifo
            // or device has no torch-sized content.
            long size = ch.size();
            if (size != FILE_BYTES) {
                throw new TorchInteropException("not a torch reference-counter file: " + path + " has " + size
                        + " bytes, torch's have " + FILE_BYTES + " (64-byte header, " + SLOTS + " 8-byte slots)");
            }
            MemorySegment memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES, arena);
            return new TorchCounterFile(name, path, arena, memory);
        } catch (NoSuchFileException e) {
            arena.close();
            throw new TorchInteropException("torch reference-counter file " + path + " does not exist: the producer"
                    + " has exited (or shared from another machine or container, whose /dev/shm this is not)");
        } catch (IOException e) {
            arena.close();
            throw new TorchInteropException("cannot map torch reference-counter file " + path + ": " + e, e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Makes a new counter file in {@code directory} as torch's producer makes one ({@code GetNewRefCountedSentData}:
     * {@code RefcountedMapAllocator} with {@code ALLOCATOR_MAPPED_SHAREDMEM | ALLOCATOR_MAPPED_EXCLUSIVE}, so
     * {@code O_CREAT | O_EXCL}, mode 0600, and the process count set to 1 by {@code initializeAlloc}) and maps it.
     * The name is torch's form, {@code /torch_<pid>_<random>_<n>}, with this process's pid. The caller owns the
     * file: it keeps the process count at 1 (torch's reader adds and removes itself around each release, and would
     * unlink a file it found at 0) and deletes the file itself ({@link #delete()}).
     *
     * @param directory the directory of the counter files
     * @param number the {@code <n>} of the name, the caller's count of its files
     * @return the mapped file, every slot 0
     * @throws TorchInteropException when the file cannot be made
     */
    static TorchCounterFile create(Path directory, int number) {
        long pid = ProcessHandle.current().pid();
        return create(directory,
                () -> "/torch_" + pid + "_" + Integer.toUnsignedString(RANDOM.nextInt()) + "_" + number);
    }

    /**
     * As {@link #create(Path, int)}, under the first name of {@code names} that is free ({@link FreshName}): a name
     * taken by another file is passed over, and that file is neither opened nor removed.
     *
     * @param directory the directory of the counter files
     * @param names torch's names to try (random ones; tests give names that are taken)
     * @return the mapped file, every slot 0
     * @throws TorchInteropException when the file cannot be made, or every name tried was taken
     */
    static TorchCounterFile create(Path directory, Supplier<String> names) {
        try {
            return FreshName.make(names, name -> make(directory, name));
        } catch (CoordinationException taken) {
            throw new TorchInteropException("cannot make a torch reference-counter file in " + directory + ": "
                    + taken.getMessage(), taken);
        }
    }

    private static TorchCounterFile make(Path directory, String name) throws FileAlreadyExistsException {
        Path path = pathOf(directory, name);
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ch.write(java.nio.ByteBuffer.allocate(1), FILE_BYTES - 1); // sized as torch's; the rest reads 0
            MemorySegment memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES, arena);
            COUNT.setVolatile(memory, 0L, 1);
            return new TorchCounterFile(name, path, arena, memory);
        } catch (FileAlreadyExistsException taken) {
            arena.close(); // another file's name: it is left as it is
            throw taken;
        } catch (IOException | RuntimeException e) {
            arena.close();
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // it was not made, or cannot be removed either: the first failure says why
            }
            throw new TorchInteropException("cannot make a torch reference-counter file " + path + ": " + e, e);
        }
    }

    /** Sets {@code slot} to {@code value}: what the producer does at every share ({@code set_counter(1)}). */
    void set(long slot, long value) {
        SLOT.setVolatile(memory, offset(slot), value);
    }

    /**
     * Unmaps the file and removes it, as the producer that made it does when done ({@link #create}). A reader that
     * releases later finds no file, which torch's reader ignores.
     *
     * @throws TorchInteropException when it cannot be removed
     */
    void delete() {
        close();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new TorchInteropException("cannot remove torch reference-counter file " + path + ": " + e, e);
        }
    }

    /**
     * Gives {@code slot} of the counter file {@code name} back once, mapping the file only for this: what the
     * lease watcher does for a reader that died.
     *
     * @param directory the directory of the counter files
     * @param name the name as torch gives it
     * @param slot the slot to give back
     * @return what happened
     */
    public static ReleaseOutcome release(Path directory, String name, long slot) {
        TorchCounterFile file;
        try {
            file = open(directory, name);
        } catch (TorchInteropException e) {
            if (!Files.exists(pathOf(directory, name), LinkOption.NOFOLLOW_LINKS)) {
                return ReleaseOutcome.PRODUCER_GONE;
            }
            throw e;
        }
        try (file) {
            return file.decrement(slot);
        }
    }

    /** {@return the name as torch gave it} */
    public String name() {
        return name;
    }

    /** {@return the file's path} */
    public Path path() {
        return path;
    }

    /**
     * {@return the slot's value now}
     *
     * @param slot the slot, 0 to {@value #SLOTS} - 1 (torch's {@code ref_counter_offset})
     */
    public long slot(long slot) {
        return (long) SLOT.getVolatile(memory, offset(slot));
    }

    /** {@return the number of processes that map the file the torch way (read only; this class never changes it)} */
    public int processCount() {
        return (int) COUNT.getVolatile(memory, 0L);
    }

    /**
     * Decrements {@code slot} by one unless it is 0 or below, atomically.
     *
     * @param slot the slot, 0 to {@value #SLOTS} - 1 (torch's {@code ref_counter_offset})
     * @return {@link ReleaseOutcome#RELEASED}, {@link ReleaseOutcome#ALREADY_ZERO}, or
     *         {@link ReleaseOutcome#PRODUCER_GONE} when the file has been unlinked (the decrement then changes memory
     *         no producer reads)
     */
    public ReleaseOutcome decrement(long slot) {
        ReleaseOutcome r = giveBack(slot);
        return r != ReleaseOutcome.RELEASED || Files.exists(path, LinkOption.NOFOLLOW_LINKS) ? r
                : ReleaseOutcome.PRODUCER_GONE;
    }

    /**
     * As {@link #decrement}, without looking whether the file is still there (a system call): for a slot given back
     * on the way to opening a storage, where a producer that exited meanwhile is noticed by the open itself.
     *
     * @param slot the slot, 0 to {@value #SLOTS} - 1
     * @return {@link ReleaseOutcome#RELEASED} or {@link ReleaseOutcome#ALREADY_ZERO}
     */
    ReleaseOutcome giveBack(long slot) {
        long at = offset(slot);
        long v;
        do {
            v = (long) SLOT.getVolatile(memory, at);
            if (v <= 0) {
                return ReleaseOutcome.ALREADY_ZERO;
            }
        } while (!SLOT.compareAndSet(memory, at, v, v - 1));
        return ReleaseOutcome.RELEASED;
    }

    private static long offset(long slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("reference-counter slot " + slot + " is outside 0.." + (SLOTS - 1));
        }
        return HEADER_BYTES + 8 * slot;
    }

    /** Unmaps the file. Idempotent. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            try {
                arena.close();
            } catch (IllegalStateException alreadyClosed) {
                // a racing close won
            }
        }
    }

    @Override
    public String toString() {
        return "torch reference-counter file " + path;
    }
}
