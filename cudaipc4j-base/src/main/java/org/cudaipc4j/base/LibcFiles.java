package org.cudaipc4j.base;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * libc's calls on files the JDK has no API for: creating a file exclusively with an exact mode, reserving its blocks
 * up front ({@code posix_fallocate}), anonymous files in memory, checking and copying descriptors. Linux only; see
 * {@link Libc}.
 */
public final class LibcFiles {
    /** Linux's {@code O_WRONLY}. */
    public static final int O_WRONLY = 01;
    /** Linux's {@code O_RDWR}. */
    public static final int O_RDWR = 02;
    /** Linux's {@code O_CREAT}. */
    public static final int O_CREAT = 0100;
    /** Linux's {@code O_EXCL}. */
    public static final int O_EXCL = 0200;
    /** Linux's {@code O_CLOEXEC}. */
    public static final int O_CLOEXEC = 02000000;
    /** Linux's {@code MFD_CLOEXEC}. */
    public static final int MFD_CLOEXEC = 1;
    /** Linux's {@code F_GETFD}. */
    public static final int F_GETFD = 1;

    private LibcFiles() {}

    /**
     * {@return {@code open(path, flags, mode)}; value is the descriptor or -1 with errno}
     *
     * @param path the file
     * @param flags {@code O_*} flags
     * @param mode the permission bits of a new file
     */
    public static Libc.Result open(String path, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpath = arena.allocateFrom(path);
            return Libc.withErrno(s -> LibcCalls.open(s, cpath, flags, mode));
        }
    }

    /**
     * {@return {@code fchmod(fd, mode)}}
     *
     * @param fd the file
     * @param mode the new permission bits
     */
    public static Libc.Result fchmod(int fd, int mode) {
        return Libc.withErrno(s -> LibcCalls.fchmod(s, fd, mode));
    }

    /**
     * {@return {@code posix_fallocate}: returns 0 or the error number (it does not set errno); retries on EINTR}
     *
     * @param fd the file
     * @param offset the first byte to reserve
     * @param length the number of bytes to reserve
     */
    public static int posixFallocate(int fd, long offset, long length) {
        int rc;
        do {
            rc = LibcCalls.posix_fallocate(fd, offset, length);
        } while (rc == Libc.EINTR);
        return rc;
    }

    /**
     * {@return {@code memfd_create(name, MFD_CLOEXEC)}: an anonymous file in memory}
     *
     * @param name the file's name, for {@code /proc}
     */
    public static Libc.Result memfdCreate(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cname = arena.allocateFrom(name);
            return Libc.withErrno(s -> LibcCalls.memfd_create(s, cname, MFD_CLOEXEC));
        }
    }

    /**
     * {@return {@code fcntl(fd, F_GETFD)}: fails with EBADF when {@code fd} is not open}
     *
     * @param fd the descriptor to check
     */
    public static Libc.Result fcntlGetFd(int fd) {
        return Libc.withErrno(s -> LibcCalls.fcntl(s, fd, F_GETFD));
    }

    /**
     * {@return {@code dup2(fd, target)}: {@code target}, now a copy of {@code fd}, or -1 when it failed}
     *
     * @param fd the descriptor to copy
     * @param target the number the copy takes (an open descriptor of that number is closed first)
     */
    public static int dup2(int fd, int target) {
        return LibcCalls.dup2(fd, target);
    }
}
