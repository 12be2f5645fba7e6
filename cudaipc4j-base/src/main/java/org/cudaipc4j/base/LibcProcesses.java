package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * libc's calls on processes the JDK has no API for: pidfds (a process's descriptor, and copies of its descriptors),
 * epoll to wait on many of them, letting another process take our descriptors ({@code PR_SET_PTRACER}), and ending
 * this process at once. Linux only; see {@link Libc}.
 */
public final class LibcProcesses {
    /** Linux's {@code EPOLL_CLOEXEC}. */
    public static final int EPOLL_CLOEXEC = LibcFiles.O_CLOEXEC;
    /** Linux's {@code EPOLLIN}. */
    public static final int EPOLLIN = 0x1;
    /** Reported once, then disarmed: a descriptor that stays ready (an exited process's pidfd) is not queued again. */
    public static final int EPOLLONESHOT = 1 << 30;
    /** Linux's {@code PR_SET_PTRACER}. */
    public static final int PR_SET_PTRACER = 0x59616d61;
    /** What {@code prctl(PR_SET_PTRACER)} returns where the kernel has no Yama LSM. */
    public static final int EINVAL_NO_YAMA = 22;
    /** The system call number of {@code pidfd_open}, the same on every architecture. */
    public static final long SYS_PIDFD_OPEN = 434;
    /** The system call number of {@code pidfd_getfd}, the same on every architecture. */
    public static final long SYS_PIDFD_GETFD = 438;
    private static final int EPOLL_CTL_ADD = 1;

    private LibcProcesses() {}

    /**
     * {@code struct epoll_event}: the event mask and the caller's 64-bit datum. x86-64 declares it packed (12 bytes,
     * the datum unaligned at 4); other architectures align the datum (16 bytes). Laid out on first use.
     */
    private static final class EpollEvent {
        static final StructLayout LAYOUT = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> MemoryLayout.structLayout(JAVA_INT.withName("events"),
                    ValueLayout.JAVA_LONG_UNALIGNED.withName("data"));
            default -> MemoryLayout.structLayout(JAVA_INT.withName("events"), MemoryLayout.paddingLayout(4),
                    JAVA_LONG.withName("data"));
        };
        static final VarHandle EVENTS = LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("events"));
        static final VarHandle DATA = LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("data"));
    }

    /**
     * {@return {@code pidfd_open(pid, 0)} (Linux 5.3+)}
     *
     * @param pid the process
     */
    public static Libc.Result pidfdOpen(long pid) {
        return Libc.withErrno(s -> LibcCalls.syscall(s, SYS_PIDFD_OPEN, pid, 0L, 0L, 0L, 0L, 0L));
    }

    /**
     * {@return {@code pidfd_getfd(pidfd, targetfd, 0)} (Linux 5.6+): a copy of another process's descriptor}
     *
     * @param pidfd a pidfd of the process that holds the descriptor
     * @param targetFd the descriptor's number in that process
     */
    public static Libc.Result pidfdGetfd(int pidfd, int targetFd) {
        return Libc.withErrno(s -> LibcCalls.syscall(s, SYS_PIDFD_GETFD, pidfd, targetFd, 0L, 0L, 0L, 0L));
    }

    /**
     * {@return {@code epoll_create1(flags)}; value is the new epoll descriptor}
     *
     * @param flags such as {@link #EPOLL_CLOEXEC}
     */
    public static Libc.Result epollCreate1(int flags) {
        return Libc.withErrno(s -> LibcCalls.epoll_create1(s, flags));
    }

    /**
     * {@return {@code epoll_ctl(epfd, EPOLL_CTL_ADD, fd, {events, data})}}
     *
     * @param epfd the epoll descriptor
     * @param fd the descriptor to watch
     * @param events {@code EPOLL*} events
     * @param data the datum reported when {@code fd} is ready
     */
    public static Libc.Result epollAdd(int epfd, int fd, int events, long data) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment event = arena.allocate(EpollEvent.LAYOUT);
            EpollEvent.EVENTS.set(event, 0L, events);
            EpollEvent.DATA.set(event, 0L, data);
            return Libc.withErrno(s -> LibcCalls.epoll_ctl(s, epfd, EPOLL_CTL_ADD, fd, event));
        }
    }

    /**
     * {@return {@code epoll_wait}, retried on EINTR: value is the number of ready descriptors, whose data land in
     * {@code data[0..value)} in the order the epoll instance queued them}
     *
     * @param epfd the epoll descriptor
     * @param data room for the reported data, one per ready descriptor
     * @param timeoutMillis the longest wait, -1 for no limit
     */
    public static Libc.Result epollWait(int epfd, long[] data, int timeoutMillis) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment events = arena.allocate(EpollEvent.LAYOUT, data.length);
            Libc.Result r = Libc.retrying(s -> LibcCalls.epoll_wait(s, epfd, events, data.length, timeoutMillis));
            for (int i = 0; i < r.value(); i++) {
                data[i] = (long) EpollEvent.DATA.get(events, i * EpollEvent.LAYOUT.byteSize());
            }
            return r;
        }
    }

    /**
     * {@return {@code prctl(PR_SET_PTRACER, pid)}: lets {@code pid} (and its descendants) ptrace, and take fds of, us}
     *
     * @param pid the process allowed
     */
    public static Libc.Result setPtracer(long pid) {
        return Libc.withErrno(s -> LibcCalls.prctl(s, PR_SET_PTRACER, pid, 0L, 0L, 0L));
    }

    /**
     * Ends this process at once with {@code status} ({@code _exit}): no shutdown hook, no at-exit handler of the JVM
     * or of a native library runs, and the kernel reclaims what the process held, as for a process that is killed.
     * Does not return.
     *
     * @param status the exit status
     */
    public static void exitNow(int status) {
        LibcCalls._exit(status);
    }
}
