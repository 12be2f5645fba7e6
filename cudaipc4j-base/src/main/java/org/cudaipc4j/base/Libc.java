package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The libc calls the JDK has no API for that every kind of descriptor and process shares: closing and polling a
 * descriptor, errno's values and text, the real user id, and the C environment the CUDA driver reads. The calls of
 * one area have classes of their own: files ({@link LibcFiles}), sockets that carry descriptors
 * ({@link LibcSockets}), pidfds, epoll and this process's end ({@link LibcProcesses}), futexes on shared memory
 * ({@link LibcFutex}). Linux only; each function is declared once ({@link LibcFunction}) and linked on first use, and
 * nothing is linked or laid out when a class loads. Calls that report through errno capture it with the call.
 */
public final class Libc {
    /** Linux's {@code EPERM}. */
    public static final int EPERM = 1;
    /** Linux's {@code ENOENT}. */
    public static final int ENOENT = 2;
    /** Linux's {@code ESRCH}. */
    public static final int ESRCH = 3;
    /** Linux's {@code EINTR}. */
    public static final int EINTR = 4;
    /** Linux's {@code EBADF}. */
    public static final int EBADF = 9;
    /** Linux's {@code EEXIST}. */
    public static final int EEXIST = 17;
    /** Linux's {@code ENOSYS}. */
    public static final int ENOSYS = 38;
    /** Linux's {@code ECONNREFUSED}. */
    public static final int ECONNREFUSED = 111;
    /** Linux's {@code POLLIN}. */
    public static final int POLLIN = 0x1;

    private Libc() {}

    /**
     * Result of a call that reports through errno: the return value and errno captured right after it.
     *
     * @param value what the call returned
     * @param errno errno right after the call; meaningful only when {@code value} says it failed
     */
    public record Result(int value, int errno) {}

    /** Where errno lies in the captured state, laid out when the first call that captures it returns. */
    private static final class Errno {
        static final VarHandle ERRNO = Linker.Option.captureStateLayout()
                .varHandle(MemoryLayout.PathElement.groupElement("errno"));
    }

    /** A libc call that reports through errno: it gets the capture segment first. */
    @FunctionalInterface
    interface ErrnoCall {
        long invoke(MemorySegment state);
    }

    /** {@return {@code call}'s value, with errno when the value is negative} */
    static Result withErrno(ErrnoCall call) {
        // The thread's scratch, not an arena per call (see CallScratch); read before any other call.
        MemorySegment state = CallScratch.errno();
        long rc = call.invoke(state);
        return new Result((int) rc, rc < 0 ? (int) Errno.ERRNO.get(state, 0L) : 0);
    }

    /** {@return as {@link #withErrno}, retried while it fails with EINTR} */
    static Result retrying(ErrnoCall call) {
        Result r;
        do {
            r = withErrno(call);
        } while (r.value() < 0 && r.errno() == EINTR);
        return r;
    }

    /**
     * Not retried on EINTR: on Linux the descriptor is closed whatever close returns.
     *
     * @param fd the descriptor to close
     * @return {@code close(fd)}
     */
    public static Result close(int fd) {
        return withErrno(s -> LibcCalls.close(s, fd));
    }

    /**
     * {@return {@code poll} on one descriptor for {@code events}; value is 1 when ready, 0 at the timeout}
     *
     * @param fd the descriptor
     * @param events {@code POLL*} events to wait for
     * @param timeoutMillis the longest wait, -1 for no limit
     */
    public static Result poll(int fd, int events, int timeoutMillis) {
        MemorySegment pfd = CallScratch.libc().asSlice(0, 8, 4); // a pidfd's liveness is polled per share
        pfd.set(JAVA_INT, 0, fd);
        pfd.set(ValueLayout.JAVA_SHORT, 4, (short) events);
        pfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
        return retrying(s -> LibcCalls.poll(s, pfd, 1L, timeoutMillis));
    }

    /**
     * {@return {@code setenv(name, value, overwrite)}: 0, or -1 when it failed} The variable is set in the C
     * environment, which native libraries read; Java's {@code System.getenv} keeps the copy it took when first used.
     *
     * @param name the variable's name
     * @param value its value
     * @param overwrite whether a value already set is replaced
     */
    public static int setenv(String name, String value, boolean overwrite) {
        try (Arena arena = Arena.ofConfined()) {
            return LibcCalls.setenv(arena.allocateFrom(name), arena.allocateFrom(value), overwrite ? 1 : 0);
        }
    }

    /**
     * {@return what the C environment holds for {@code name}, null when it is unset}
     *
     * @param name the variable's name
     */
    public static String getenv(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment now = LibcCalls.getenv(arena.allocateFrom(name));
            return now.equals(MemorySegment.NULL) ? null : now.reinterpret(Long.MAX_VALUE).getString(0);
        }
    }

    /** {@return the real user id of this process} */
    public static long getuid() {
        return Integer.toUnsignedLong(LibcCalls.getuid());
    }

    /**
     * {@return the C library's text for an error number, e.g. "No space left on device"}
     *
     * @param errno the error number
     */
    public static String strerror(int errno) {
        MemorySegment s = LibcCalls.strerror(errno);
        if (s.equals(MemorySegment.NULL)) {
            return "errno " + errno;
        }
        return s.reinterpret(1024).getString(0);
    }
}
