package org.cudaipc4j.coord;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.HexFormat;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.coord.internal.ShutdownRemovals;

/**
 * A file under {@code /dev/shm} (a tmpfs), mapped read-write and shared as a {@link MemorySegment}: the memory
 * that the processes of a group share.
 *
 * <p>Names are {@code cudaipc4j-<pid>-<16 hex random>[-<suffix>]}, where {@code <pid>} is the creator's. The
 * creator makes the file exclusively with mode 0600 (a name that is taken, by anyone, makes it pick another: {@link
 * FreshName}) and reserves all of its blocks before mapping, so a full
 * {@code /dev/shm} is a clear error here rather than a SIGBUS on first touch. The creator's {@link #close()}
 * unlinks the file; if the creator's JVM is shut down first (SIGINT, SIGTERM, {@code System.exit}), a shutdown
 * hook unlinks it; if the creator is killed outright, {@link #reapStale()} at the next start removes it.
 *
 * <p>The directory is {@code /dev/shm} unless the system property {@code cudaipc4j.shm.dir} names another one.
 *
 * <p>Thread safety: {@link #memory()} may be used from any thread; {@link #close()} is idempotent and may race
 * with the shutdown hook. Accessing the memory after close throws {@link IllegalStateException}.
 */
public final class SharedSegment implements AutoCloseable {
    /** The prefix of every segment name. */
    public static final String PREFIX = "cudaipc4j-";
    /** Suffix of the socket directories of the descriptor server ({@code FdServer}), reaped like segments. */
    public static final String SOCKET_DIRECTORY_SUFFIX = ".fds";
    private static final int MAX_NAME = 200;
    private static final Pattern SUFFIX = Pattern.compile("[A-Za-z0-9_]{1,32}");
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9_.-]+");
    private static final Pattern OWNED_NAME = Pattern.compile(Pattern.quote(PREFIX) + "([0-9]{1,10})-.+");
    // A process started this long after a segment file was last modified cannot be the segment's creator.
    private static final long PID_REUSE_SLACK_MILLIS = 2_000;

    private final String name;
    private final Path path;
    private final long size;
    private final boolean creator;
    private final Arena arena;
    private final MemorySegment memory;
    private boolean closed;
    private boolean unlinked;
    /** The creator's file removal, kept for the JVM's shutdown until {@link #close()}. */
    private final ShutdownRemovals.Removal removal = this::unlink;

    private SharedSegment(String name, Path path, long size, boolean creator, Arena arena, MemorySegment memory) {
        this.name = name;
        this.path = path;
        this.size = size;
        this.creator = creator;
        this.arena = arena;
        this.memory = memory;
    }

    /**
     * Creates a new segment of {@code size} bytes, zero-filled. See {@link #create(String, long)}.
     *
     * @param size the segment's size in bytes
     * @return the new segment, owned by the caller
     */
    public static SharedSegment create(long size) {
        return create(null, size);
    }

    /**
     * Creates a new segment of {@code size} bytes, zero-filled, named
     * {@code cudaipc4j-<pid>-<16 hex random>-<suffix>} (no suffix when {@code suffix} is null).
     *
     * @param suffix letters, digits and '_', at most 32, or null
     * @param size the segment's size in bytes
     * @return the new segment, owned by the caller
     * @throws SharedSegmentException when the directory is missing, or there is no room for it
     */
    public static SharedSegment create(String suffix, long size) {
        return create(suffix, size, true);
    }

    /** As {@link #create(String, long)}; without the free-space check first, the kernel's answer is the check. */
    static SharedSegment create(String suffix, long size, boolean checkFreeSpaceFirst) {
        return createFresh(() -> newName(suffix), size, checkFreeSpaceFirst);
    }

    /**
     * As {@link #create(String, long)}, under the first name of {@code names} that nobody has taken ({@link
     * FreshName}): tests give names that exist.
     */
    static SharedSegment createFresh(Supplier<String> names, long size, boolean checkFreeSpaceFirst) {
        return FreshName.make(names, name -> make(name, size, checkFreeSpaceFirst));
    }

    /**
     * {@return a fresh segment name for this process, {@code cudaipc4j-<pid>-<16 hex random>[-<suffix>]}, without
     * creating anything: lets a creator hand the name to processes it starts before the segment exists}
     *
     * @param suffix letters, digits and '_', at most 32, or null
     */
    public static String newName(String suffix) {
        if (suffix != null && !SUFFIX.matcher(suffix).matches()) {
            throw new IllegalArgumentException("bad shared segment suffix '" + suffix
                    + "': use 1 to 32 letters, digits or '_'");
        }
        byte[] random = new byte[8];
        Entropy.nextBytes(random);
        return PREFIX + Pids.self() + "-" + HexFormat.of().formatHex(random) + (suffix == null ? "" : "-" + suffix);
    }

    /**
     * Creates a new segment of {@code size} bytes, zero-filled, under a name from {@link #newName} of this process.
     *
     * @param name a name from {@link #newName}
     * @param size the segment's size in bytes
     * @return the new segment, owned by the caller
     * @throws IllegalArgumentException when {@code name} is not a name this process could have made
     * @throws SharedSegmentException when the file exists, the directory is missing, or there is no room for it
     */
    public static SharedSegment createNamed(String name, long size) {
        try {
            return make(name, size, true);
        } catch (FileAlreadyExistsException e) {
            throw new SharedSegmentException("cannot create shared segment " + e.getFile() + ": it already exists");
        }
    }

    /** Creates the segment {@code name}; a name that is taken is left as it is, and said so. */
    private static SharedSegment make(String name, long size, boolean checkFreeSpaceFirst)
            throws FileAlreadyExistsException {
        checkNew(name, size);
        Path dir = directory();
        Path path = dir.resolve(name);
        if (checkFreeSpaceFirst) {
            FreeSpace.checkRoom(dir, name, size);
        }
        // Created and known to the shutdown's removals in one step: a file made while the JVM shuts down (a signal
        // at start-up) would be seen by nobody.
        ShutdownRemovals.Removal fileRemoval = () -> deleteFile(path);
        int fd = openExclusive(path, fileRemoval);
        Arena arena = null;
        try {
            // open() applied the umask; set exactly 0600.
            Libc.Result chmod = LibcFiles.fchmod(fd, 0600);
            if (chmod.value() != 0) {
                throw new SharedSegmentException("cannot set mode 0600 on shared segment " + path + ": "
                        + Libc.strerror(chmod.errno()));
            }
            int err = LibcFiles.posixFallocate(fd, 0, size);
            if (err != 0) {
                throw new SharedSegmentException("cannot reserve " + size + " bytes for shared segment " + path + ": "
                        + Libc.strerror(err) + FreeSpace.describe(dir));
            }
            arena = Arena.ofShared();
            MemorySegment memory;
            try (FileChannel ch = FileChannel.open(path, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS))) {
                memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            }
            SharedSegment segment = new SharedSegment(name, path, size, true, arena, memory);
            ShutdownRemovals.keep(segment.removal);
            ShutdownRemovals.forget(fileRemoval);
            return segment;
        } catch (IOException | RuntimeException e) {
            ShutdownRemovals.forget(fileRemoval);
            if (arena != null) {
                arena.close();
            }
            try {
                Files.deleteIfExists(path);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof SharedSegmentException s) {
                throw s;
            }
            throw new SharedSegmentException("cannot create shared segment " + path + ": " + e.getMessage(), e);
        } finally {
            Libc.close(fd);
        }
    }

    /** Refuses a size that is not positive and a name that is not one of this process's segment names. */
    private static void checkNew(String name, long size) {
        if (size <= 0) {
            throw new IllegalArgumentException("shared segment size must be positive, got " + size);
        }
        validateName(name);
        Matcher owned = OWNED_NAME.matcher(name);
        if (!owned.matches() || Long.parseLong(owned.group(1)) != Pids.self()) {
            throw new IllegalArgumentException("'" + name + "' is not a segment name of this process (pid "
                    + Pids.self() + ")");
        }
    }

    /** {@return the descriptor of the file made at {@code path}, mode 0600, kept for removal at shutdown} */
    private static int openExclusive(Path path, ShutdownRemovals.Removal fileRemoval)
            throws FileAlreadyExistsException {
        Libc.Result open = ShutdownRemovals.make(() -> {
            Libc.Result made = LibcFiles.open(path.toString(),
                    LibcFiles.O_RDWR | LibcFiles.O_CREAT | LibcFiles.O_EXCL | LibcFiles.O_CLOEXEC, 0600);
            if (made.value() >= 0) {
                ShutdownRemovals.keep(fileRemoval);
            }
            return made;
        }, () -> new SharedSegmentException("cannot create shared segment " + path + ": this JVM is shutting down"));
        if (open.value() == -1 && open.errno() == Libc.EEXIST) {
            throw new FileAlreadyExistsException(path.toString());
        }
        if (open.value() < 0) {
            throw new SharedSegmentException(switch (open.errno()) {
                case Libc.ENOENT -> "cannot create shared segment " + path + ": directory " + path.getParent()
                        + " does not exist";
                default -> "cannot create shared segment " + path + ": " + Libc.strerror(open.errno());
            });
        }
        return open.value();
    }

    /**
     * Opens an existing segment by name and maps all of it.
     *
     * @param name the segment's file name
     * @return the open segment
     * @throws IllegalArgumentException when the name is not a cudaipc4j segment name
     * @throws SharedSegmentException when it does not exist, is not a regular file, or is owned by another user
     */
    public static SharedSegment open(String name) {
        return open(name, Libc.getuid());
    }

    /**
     * As {@link #open(String)}, with the uid the file must belong to given: tests check the owner comparison with
     * an owner of their choosing, as giving a file to another user needs root.
     */
    static SharedSegment open(String name, long owner) {
        SharedSegment segment = openIfCreated(name, owner);
        if (segment == null) {
            Path path = directory().resolve(name);
            throw new SharedSegmentException(Files.exists(path, LinkOption.NOFOLLOW_LINKS)
                    ? "shared segment " + path + " is empty" : "shared segment " + path + " does not exist");
        }
        return segment;
    }

    /**
     * As {@link #open}, but null while the segment is not there yet: no file, or an empty one (its creator has
     * not sized it yet).
     */
    static SharedSegment openIfCreated(String name) {
        return openIfCreated(name, Libc.getuid());
    }

    /** As {@link #openIfCreated(String)}, refusing a file that {@code expectedOwner} (a uid) does not own. */
    static SharedSegment openIfCreated(String name, long expectedOwner) {
        validateName(name);
        Path path = directory().resolve(name);
        BasicFileAttributes attrs;
        long owner;
        try {
            attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            owner = ((Number) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new SharedSegmentException("cannot read shared segment " + path + ": " + e.getMessage(), e);
        }
        if (!attrs.isRegularFile()) {
            throw new SharedSegmentException("shared segment " + path + " is not a regular file");
        }
        if (owner != expectedOwner) {
            throw new SharedSegmentException("shared segment " + path + " is owned by uid " + owner
                    + ", not by us (uid " + expectedOwner + "); refusing to use it");
        }
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS))) {
            long size = ch.size();
            if (size == 0) {
                arena.close();
                return null;
            }
            MemorySegment memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            return new SharedSegment(name, path, size, false, arena, memory);
        } catch (NoSuchFileException e) {
            arena.close();
            return null;
        } catch (IOException | RuntimeException e) {
            arena.close();
            if (e instanceof SharedSegmentException s) {
                throw s;
            }
            throw new SharedSegmentException("cannot open shared segment " + path + ": " + e.getMessage(), e);
        }
    }

    /** {@return the file name (no directory), e.g. {@code cudaipc4j-4242-0123456789abcdef}} */
    public String name() {
        return name;
    }

    /** {@return the full path of the file} */
    public Path path() {
        return path;
    }

    /** {@return the segment's size in bytes} */
    public long size() {
        return size;
    }

    /** {@return the mapped memory; valid until {@link #close()}} */
    public MemorySegment memory() {
        return memory;
    }

    /** {@return true in the process that created the segment (and will unlink it)} */
    public boolean isCreator() {
        return creator;
    }

    /** Unmaps the memory; the creator also unlinks the file. Idempotent; safe to race with the shutdown hook. */
    @Override
    public void close() {
        RuntimeException failure = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (creator) {
                ShutdownRemovals.forget(removal);
                try {
                    unlink();
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            try {
                arena.close();
            } catch (RuntimeException e) {
                failure = Closing.firstOf(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Removes the file now, keeping the mapping (creator only). Idempotent. */
    synchronized void unlink() {
        if (unlinked) {
            return;
        }
        unlinked = true;
        deleteFile(path);
    }

    private static void deleteFile(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new SharedSegmentException("cannot remove shared segment " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Deletes segment files {@code cudaipc4j-<pid>-*} owned by our user whose creator {@code <pid>} is no longer
     * alive (or whose pid now belongs to a process started after the file was last written), and the socket
     * directories ({@code cudaipc4j-<pid>-*.fds}) of such creators with the socket in them. Never touches other
     * users' files, other names or links. Call it when a parent starts.
     *
     * @return how many files and socket directories were removed
     */
    public static int reapStale() {
        return reapStale(Libc.getuid());
    }

    /** As {@link #reapStale()}, for the files of user {@code uid}: tests choose the owner, as for {@link #open}. */
    static int reapStale(long uid) {
        Path dir = directory();
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path file : files) {
                Matcher m = OWNED_NAME.matcher(file.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                try {
                    BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class,
                            LinkOption.NOFOLLOW_LINKS);
                    long owner = ((Number) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
                    if (owner != uid || writerAlive(pid, attrs.lastModifiedTime())) {
                        continue;
                    }
                    if (attrs.isRegularFile() && Files.deleteIfExists(file)) {
                        removed++;
                    } else if (attrs.isDirectory() && file.getFileName().toString().endsWith(SOCKET_DIRECTORY_SUFFIX)) {
                        removeSocketDirectory(file);
                        removed++;
                    }
                } catch (NoSuchFileException raced) {
                    // Removed by its owner meanwhile.
                }
            }
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new SharedSegmentException("cannot scan " + dir + " for stale segments: " + e.getMessage(), e);
        }
        return removed;
    }


    /** Removes a dead creator's socket directory: its sockets, then itself (nothing else is expected there). */
    private static void removeSocketDirectory(Path dir) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                if (!Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(e);
                }
            }
        }
        Files.deleteIfExists(dir);
    }

    /**
     * Whether process {@code pid}, named by a file it wrote last at {@code lastWrite}, still runs: the rule
     * {@link #reapStale()} removes files by, for other files a process leaves behind. This process always runs; a
     * live process with that pid that started after the last write (beyond a small slack) reused the pid and is
     * not the writer.
     *
     * @param pid the pid the file names
     * @param lastWrite when the file was last written
     * @return false when the writer has ended
     */
    public static boolean writerAlive(long pid, FileTime lastWrite) {
        if (pid == Pids.self()) {
            return true;
        }
        if (!Pids.isAlive(pid)) {
            return false;
        }
        // A live process with that pid may be a newcomer that reused it: it cannot have written the file.
        long started = Pids.startMillis(pid);
        if (started < 0) {
            return true;
        }
        return started <= lastWrite.toMillis() + PID_REUSE_SLACK_MILLIS;
    }

    /** {@return the pid of the process that made segment {@code name} ({@code cudaipc4j-<pid>-...}), or -1} */
    static long creatorOf(String name) {
        Matcher m = OWNED_NAME.matcher(name);
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    /** {@return the directory segments live in} */
    public static Path directory() {
        return Path.of(CoordSettings.SHM_DIR.get());
    }

    static void validateName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("shared segment name is empty");
        }
        if (!name.startsWith(PREFIX) || name.length() == PREFIX.length()) {
            throw new IllegalArgumentException("'" + name + "' is not a cudaipc4j shared segment name (must start with "
                    + PREFIX + ")");
        }
        if (name.indexOf('/') >= 0 || name.contains("..") || name.length() > MAX_NAME
                || !SAFE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("unsafe shared segment name '" + name
                    + "': only letters, digits, '_', '-' and single '.' are allowed, no '/'");
        }
    }

    @Override
    public String toString() {
        return "SharedSegment[" + path + ", " + size + " bytes" + (creator ? ", creator" : "") + "]";
    }
}
