package org.cudaipc4j.coord.fd;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;

/**
 * A file descriptor this process owns and closes exactly once: on {@link #close()}, unless ownership was handed on
 * with {@link #release()} (to a driver call that keeps its own reference, or to another owner). Thread-safe.
 */
public final class OwnedFd implements AutoCloseable {
    private static final int CLOSED = -1;
    private final AtomicInteger fd;

    private OwnedFd(int fd) {
        this.fd = new AtomicInteger(fd);
    }

    /**
     * Takes ownership of {@code fd}, a descriptor open in this process.
     *
     * @param fd the descriptor's number
     * @return its owner
     * @throws IllegalArgumentException when {@code fd} is negative or not open
     */
    public static OwnedFd adopt(int fd) {
        if (fd < 0 || LibcFiles.fcntlGetFd(fd).value() < 0) {
            throw new IllegalArgumentException("file descriptor " + fd + " is not open in this process");
        }
        return new OwnedFd(fd);
    }

    /**
     * {@return a new anonymous file in memory ({@code memfd_create}) of {@code bytes}, its blocks reserved up front (a
     * full {@code /dev/shm} is an error here, not a SIGBUS later): memory to pass to another process by descriptor (an
     * {@link FdChannel}), where {@link #mapShared} maps the descriptor received}
     *
     * @param name the file's name, for {@code /proc} and debugging
     * @param bytes the file's size
     * @throws org.cudaipc4j.coord.CoordinationException when it cannot be made or sized
     */
    public static OwnedFd anonymousMemory(String name, long bytes) {
        Libc.Result made = LibcFiles.memfdCreate(name);
        if (made.value() < 0) {
            throw new org.cudaipc4j.coord.CoordinationException("memfd_create(" + name + ") failed: "
                    + Libc.strerror(made.errno()));
        }
        OwnedFd fd = new OwnedFd(made.value());
        int err = LibcFiles.posixFallocate(fd.value(), 0, bytes);
        if (err != 0) {
            fd.close();
            throw new org.cudaipc4j.coord.CoordinationException("cannot reserve " + bytes + " bytes of memory for "
                    + name + ": " + Libc.strerror(err));
        }
        return fd;
    }

    /**
     * Maps the whole file of this descriptor, such as memory {@linkplain #anonymousMemory made} by another process
     * and received over an {@link FdChannel}, shared and writable: stores are seen by every process that maps the
     * same file. The mapping lives as long as {@code arena}, also after this descriptor is closed.
     *
     * @param arena the arena the mapping lives in
     * @return the mapped memory
     * @throws org.cudaipc4j.coord.CoordinationException when the file cannot be mapped (a socket, a pipe, a file
     *         opened read-only) or is empty
     * @throws IllegalStateException once closed or released
     */
    public MemorySegment mapShared(Arena arena) {
        Path file = Path.of("/proc/self/fd", Integer.toString(value()));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size == 0) {
                throw new org.cudaipc4j.coord.CoordinationException("cannot map " + this + ": its file is empty");
            }
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        } catch (IOException | UnsupportedOperationException e) {
            throw new org.cudaipc4j.coord.CoordinationException("cannot map " + this + " ("
                    + describe(file) + "): " + e.getMessage());
        }
    }

    /** What {@code /proc/self/fd/N} names, for messages. */
    private static String describe(Path file) {
        try {
            return Files.readSymbolicLink(file).toString();
        } catch (IOException e) {
            return "unknown file";
        }
    }

    /** Wraps a descriptor a system call just returned (known open). */
    static OwnedFd fresh(int fd) {
        return new OwnedFd(fd);
    }

    /**
     * {@return the descriptor's number}
     *
     * @throws IllegalStateException once closed or released
     */
    public int value() {
        int v = fd.get();
        if (v == CLOSED) {
            throw new IllegalStateException("file descriptor already closed or handed on");
        }
        return v;
    }

    /** {@return true until {@link #close()} or {@link #release()}} */
    public boolean isOpen() {
        return fd.get() != CLOSED;
    }

    /**
     * Hands the descriptor on: returns its number and no longer closes it.
     *
     * @return the descriptor's number
     */
    public int release() {
        int v = fd.getAndSet(CLOSED);
        if (v == CLOSED) {
            throw new IllegalStateException("file descriptor already closed or handed on");
        }
        return v;
    }

    /** Closes the descriptor, once; later calls do nothing. */
    @Override
    public void close() {
        int v = fd.getAndSet(CLOSED);
        if (v != CLOSED) {
            Libc.close(v);
        }
    }

    @Override
    public String toString() {
        int v = fd.get();
        return v == CLOSED ? "fd (closed)" : "fd " + v;
    }
}
