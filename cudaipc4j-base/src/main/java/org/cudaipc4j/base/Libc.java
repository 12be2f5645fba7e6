package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The libc calls the JDK has no API for, each declared once for every library of the project: creating a file
 * exclusively with an exact mode and reserving its blocks up front ({@code posix_fallocate}), the real user id,
 * futexes on shared memory, sockets that carry descriptors, pidfds, epoll, the C environment the CUDA driver reads,
 * and ending a process at once. Linux only; each function's handle is linked on first use, and nothing is linked or
 * laid out when the class loads. Calls that report through errno capture it with the call.
 */
@SuppressWarnings("restricted") // binding libc is this class's purpose
public final class Libc {
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

    /** Linux's {@code EPERM}. */
    public static final int EPERM = 1;
    /** Linux's {@code ESRCH}. */
    public static final int ESRCH = 3;
    /** Linux's {@code EINTR}. */
    public static final int EINTR = 4;
    /** Linux's {@code EBADF}. */
    public static final int EBADF = 9;
    /** Linux's {@code ENOSYS}. */
    public static final int ENOSYS = 38;
    /** Linux's {@code ECONNREFUSED}. */
    public static final int ECONNREFUSED = 111;

    /** Linux's {@code AF_UNIX}. */
    public static final int AF_UNIX = 1;
    /** Linux's {@code SOCK_STREAM}. */
    public static final int SOCK_STREAM = 1;
    /** Linux's {@code SOCK_CLOEXEC}. */
    public static final int SOCK_CLOEXEC = 02000000;
    /** Linux's {@code SOL_SOCKET}. */
    public static final int SOL_SOCKET = 1;
    /** Linux's {@code SO_PEERCRED}. */
    public static final int SO_PEERCRED = 17;
    /** Linux's {@code SCM_RIGHTS}. */
    public static final int SCM_RIGHTS = 1;
    /** Linux's {@code MSG_NOSIGNAL}. */
    public static final int MSG_NOSIGNAL = 0x4000;
    /** Linux's {@code MSG_CMSG_CLOEXEC}. */
    public static final int MSG_CMSG_CLOEXEC = 0x40000000;
    /** Linux's {@code MSG_CTRUNC}. */
    public static final int MSG_CTRUNC = 0x8;
    /** Linux's {@code POLLIN}. */
    public static final int POLLIN = 0x1;
    /** Linux's {@code SHUT_RDWR}. */
    public static final int SHUT_RDWR = 2;
    /** Linux's {@code MFD_CLOEXEC}. */
    public static final int MFD_CLOEXEC = 1;
    /** Linux's {@code F_GETFD}. */
    public static final int F_GETFD = 1;
    /** Linux's {@code PR_SET_PTRACER}. */
    public static final int PR_SET_PTRACER = 0x59616d61;
    /** What {@code prctl(PR_SET_PTRACER)} returns where the kernel has no Yama LSM. */
    public static final int EINVAL_NO_YAMA = 22;
    /** The system call number of {@code pidfd_open}, the same on every architecture. */
    public static final long SYS_PIDFD_OPEN = 434;
    /** The system call number of {@code pidfd_getfd}, the same on every architecture. */
    public static final long SYS_PIDFD_GETFD = 438;
    /** Linux's {@code EEXIST}. */
    public static final int EEXIST = 17;
    /** Linux's {@code ENOENT}. */
    public static final int ENOENT = 2;
    /** Linux's {@code EPOLL_CLOEXEC}. */
    public static final int EPOLL_CLOEXEC = O_CLOEXEC;
    /** Linux's {@code EPOLLIN}. */
    public static final int EPOLLIN = 0x1;
    /** Reported once, then disarmed: a descriptor that stays ready (an exited process's pidfd) is not queued again. */
    public static final int EPOLLONESHOT = 1 << 30;
    private static final int EPOLL_CTL_ADD = 1;

    private Libc() {}

    /**
     * Result of a call that reports through errno: the return value and errno captured right after it.
     *
     * @param value what the call returned
     * @param errno errno right after the call; meaningful only when {@code value} says it failed
     */
    public record Result(int value, int errno) {}

    /** What every binding shares; each function's handle has a holder class of its own, linked on first use. */
    private static final class Handles {
        static final Linker LINKER = Linker.nativeLinker();
        static final SymbolLookup LOOKUP = LINKER.defaultLookup();

        static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
            MemorySegment symbol = LOOKUP.find(name)
                    .orElseThrow(() -> new UnsatisfiedLinkError("libc function " + name + " not found"));
            return LINKER.downcallHandle(symbol, fd, options);
        }
    }

    /** What the calls that report through errno share, made when the first of them is linked. */
    private static final class Errno {
        static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final Linker.Option OPTION = Linker.Option.captureCallState("errno");
    }

    // One holder per function: linking a downcall costs milliseconds, and a process uses only some of them (a
    // child opening a segment never creates one), so none is linked before it is needed.
    private static final class Open {
        static final MethodHandle H = Handles.downcall("open",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Errno.OPTION,
                Linker.Option.firstVariadicArg(2));
    }

    private static final class Close {
        static final MethodHandle H = Handles.downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT),
                Errno.OPTION);
    }

    private static final class Fchmod {
        static final MethodHandle H = Handles.downcall("fchmod", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                Errno.OPTION);
    }

    private static final class PosixFallocate {
        static final MethodHandle H = Handles.downcall("posix_fallocate",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    }

    private static final class Getuid {
        static final MethodHandle H = Handles.downcall("getuid", FunctionDescriptor.of(JAVA_INT));
    }

    private static final class Strerror {
        static final MethodHandle H = Handles.downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private static final class Syscall6 {
        // long syscall(long number, ...): every variadic argument is read as a long.
        static final MethodHandle H = Handles.downcall("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG,
                ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG), Linker.Option.firstVariadicArg(1));
    }


    private static final class MemfdCreate {
        static final MethodHandle H = Handles.downcall("memfd_create",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Errno.OPTION);
    }

    private static final class Fcntl {
        static final MethodHandle H = Handles.downcall("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                Errno.OPTION, Linker.Option.firstVariadicArg(2));
    }

    private static final class Socket {
        static final MethodHandle H = Handles.downcall("socket",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Errno.OPTION);
    }

    private static final class Socketpair {
        static final MethodHandle H = Handles.downcall("socketpair",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), Errno.OPTION);
    }

    private static final class Bind {
        static final MethodHandle H = Handles.downcall("bind",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), Errno.OPTION);
    }

    private static final class Listen {
        static final MethodHandle H = Handles.downcall("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                Errno.OPTION);
    }

    private static final class Accept4 {
        static final MethodHandle H = Handles.downcall("accept4",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), Errno.OPTION);
    }

    private static final class Connect {
        static final MethodHandle H = Handles.downcall("connect",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), Errno.OPTION);
    }

    private static final class Sendmsg {
        static final MethodHandle H = Handles.downcall("sendmsg",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), Errno.OPTION);
    }

    private static final class Recvmsg {
        static final MethodHandle H = Handles.downcall("recvmsg",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), Errno.OPTION);
    }

    private static final class Getsockopt {
        static final MethodHandle H = Handles.downcall("getsockopt",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), Errno.OPTION);
    }

    private static final class Poll {
        static final MethodHandle H = Handles.downcall("poll",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Errno.OPTION);
    }

    private static final class Shutdown {
        static final MethodHandle H = Handles.downcall("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                Errno.OPTION);
    }

    private static final class Syscall3 {
        // long syscall(long number, ...): pidfd_open(pid, flags), pidfd_getfd(pidfd, fd, flags).
        static final MethodHandle H = Handles.downcall("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG), Errno.OPTION, Linker.Option.firstVariadicArg(1));
    }

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

    private static final class EpollCreate1 {
        static final MethodHandle H = Handles.downcall("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT),
                Errno.OPTION);
    }

    private static final class EpollCtl {
        static final MethodHandle H = Handles.downcall("epoll_ctl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), Errno.OPTION);
    }

    private static final class EpollWait {
        static final MethodHandle H = Handles.downcall("epoll_wait",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Errno.OPTION);
    }

    private static final class Setenv {
        static final MethodHandle H = Handles.downcall("setenv",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }

    private static final class Getenv {
        static final MethodHandle H = Handles.downcall("getenv", FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    private static final class Dup2 {
        static final MethodHandle H = Handles.downcall("dup2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }

    private static final class Exit {
        static final MethodHandle H = Handles.downcall("_exit", FunctionDescriptor.ofVoid(JAVA_INT));
    }

    private static final class Prctl {
        static final MethodHandle H = Handles.downcall("prctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG), Errno.OPTION, Linker.Option.firstVariadicArg(1));
    }

    /**
     * {@return {@code open(path, flags, mode)}; value is the descriptor or -1 with errno}
     *
     * @param path the file
     * @param flags {@code O_*} flags
     * @param mode the permission bits of a new file
     */
    public static Result open(String path, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpath = arena.allocateFrom(path);
            return withErrno(s -> (int) Open.H.invokeExact(s, cpath, flags, mode));
        }
    }

    /**
     * {@return {@code fchmod(fd, mode)}}
     *
     * @param fd the file
     * @param mode the new permission bits
     */
    public static Result fchmod(int fd, int mode) {
        return withErrno(s -> (int) Fchmod.H.invokeExact(s, fd, mode));
    }

    /**
     * Not retried on EINTR: on Linux the descriptor is closed whatever close returns.
     *
     * @param fd the descriptor to close
     * @return {@code close(fd)}
     */
    public static Result close(int fd) {
        return withErrno(s -> (int) Close.H.invokeExact(s, fd));
    }

    /** Runs a libc call that reports through errno: {@code call} gets the capture segment first. */
    @FunctionalInterface
    private interface ErrnoCall {
        long invoke(MemorySegment state) throws Throwable;
    }

    private static Result withErrno(ErrnoCall call) {
        try {
            // The thread's scratch, not an arena per call (see CallScratch); read before any other call.
            MemorySegment state = CallScratch.errno();
            long rc = call.invoke(state);
            return new Result((int) rc, rc < 0 ? (int) Errno.ERRNO.get(state, 0L) : 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** As {@link #withErrno}, retried while it fails with EINTR. */
    private static Result retrying(ErrnoCall call) {
        Result r;
        do {
            r = withErrno(call);
        } while (r.value() < 0 && r.errno() == EINTR);
        return r;
    }

    /**
     * {@return {@code memfd_create(name, MFD_CLOEXEC)}: an anonymous file in memory}
     *
     * @param name the file's name, for {@code /proc}
     */
    public static Result memfdCreate(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cname = arena.allocateFrom(name);
            return withErrno(s -> (int) MemfdCreate.H.invokeExact(s, cname, MFD_CLOEXEC));
        }
    }

    /**
     * {@return {@code fcntl(fd, F_GETFD)}: fails with EBADF when {@code fd} is not open}
     *
     * @param fd the descriptor to check
     */
    public static Result fcntlGetFd(int fd) {
        return withErrno(s -> (int) Fcntl.H.invokeExact(s, fd, F_GETFD));
    }

    /**
     * {@return {@code socket(domain, type, protocol)}; value is the new descriptor}
     *
     * @param domain the address family, such as {@link #AF_UNIX}
     * @param type the socket type and flags, such as {@link #SOCK_STREAM}
     * @param protocol 0 for the family's default
     */
    public static Result socket(int domain, int type, int protocol) {
        return withErrno(s -> (int) Socket.H.invokeExact(s, domain, type, protocol));
    }

    /**
     * {@return {@code socketpair}: the two descriptors land in {@code pair} (two ints)}
     *
     * @param domain the address family
     * @param type the socket type and flags
     * @param protocol 0 for the family's default
     * @param pair where the two descriptors are written
     */
    public static Result socketpair(int domain, int type, int protocol, MemorySegment pair) {
        return withErrno(s -> (int) Socketpair.H.invokeExact(s, domain, type, protocol, pair));
    }

    /**
     * {@return {@code bind(fd, address, length)}}
     *
     * @param fd the socket
     * @param address a {@code struct sockaddr}
     * @param length the address's length in bytes
     */
    public static Result bind(int fd, MemorySegment address, int length) {
        return withErrno(s -> (int) Bind.H.invokeExact(s, fd, address, length));
    }

    /**
     * {@return {@code listen(fd, backlog)}}
     *
     * @param fd the socket
     * @param backlog the longest queue of pending connections
     */
    public static Result listen(int fd, int backlog) {
        return withErrno(s -> (int) Listen.H.invokeExact(s, fd, backlog));
    }

    /**
     * {@return {@code accept4(fd, NULL, NULL, flags)}, retried on EINTR; value is the new descriptor}
     *
     * @param fd the listening socket
     * @param flags {@code SOCK_*} flags for the new descriptor
     */
    public static Result accept4(int fd, int flags) {
        return retrying(s -> (int) Accept4.H.invokeExact(s, fd, MemorySegment.NULL, MemorySegment.NULL, flags));
    }

    /**
     * {@return {@code connect(fd, address, length)}, retried on EINTR}
     *
     * @param fd the socket
     * @param address a {@code struct sockaddr}
     * @param length the address's length in bytes
     */
    public static Result connect(int fd, MemorySegment address, int length) {
        return retrying(s -> (int) Connect.H.invokeExact(s, fd, address, length));
    }

    /**
     * {@return {@code sendmsg}; value is the number of bytes sent (it fits an int here)}
     *
     * @param fd the socket
     * @param msghdr a {@code struct msghdr}
     * @param flags {@code MSG_*} flags
     */
    public static Result sendmsg(int fd, MemorySegment msghdr, int flags) {
        return retrying(s -> (long) Sendmsg.H.invokeExact(s, fd, msghdr, flags));
    }

    /**
     * {@return {@code recvmsg}; value is the number of bytes received, 0 at end of stream}
     *
     * @param fd the socket
     * @param msghdr a {@code struct msghdr} to fill
     * @param flags {@code MSG_*} flags
     */
    public static Result recvmsg(int fd, MemorySegment msghdr, int flags) {
        return retrying(s -> (long) Recvmsg.H.invokeExact(s, fd, msghdr, flags));
    }

    /**
     * {@return {@code getsockopt(fd, level, name, value, length)}}
     *
     * @param fd the socket
     * @param level the option's level, such as {@link #SOL_SOCKET}
     * @param name the option, such as {@link #SO_PEERCRED}
     * @param value where the option's value is written
     * @param length an int: the room in {@code value}, then the length written
     */
    public static Result getsockopt(int fd, int level, int name, MemorySegment value, MemorySegment length) {
        return withErrno(s -> (int) Getsockopt.H.invokeExact(s, fd, level, name, value, length));
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
        return retrying(s -> (int) Poll.H.invokeExact(s, pfd, 1L, timeoutMillis));
    }

    /**
     * {@return {@code shutdown(fd, how)}}
     *
     * @param fd the socket
     * @param how such as {@link #SHUT_RDWR}
     */
    public static Result shutdown(int fd, int how) {
        return withErrno(s -> (int) Shutdown.H.invokeExact(s, fd, how));
    }

    /**
     * {@return {@code pidfd_open(pid, 0)} (Linux 5.3+)}
     *
     * @param pid the process
     */
    public static Result pidfdOpen(long pid) {
        return withErrno(s -> (long) Syscall3.H.invokeExact(s, SYS_PIDFD_OPEN, pid, 0L, 0L));
    }

    /**
     * {@return {@code pidfd_getfd(pidfd, targetfd, 0)} (Linux 5.6+): a copy of another process's descriptor}
     *
     * @param pidfd a pidfd of the process that holds the descriptor
     * @param targetFd the descriptor's number in that process
     */
    public static Result pidfdGetfd(int pidfd, int targetFd) {
        return withErrno(s -> (long) Syscall3.H.invokeExact(s, SYS_PIDFD_GETFD, (long) pidfd, (long) targetFd, 0L));
    }

    /**
     * {@return {@code epoll_create1(flags)}; value is the new epoll descriptor}
     *
     * @param flags such as {@link #EPOLL_CLOEXEC}
     */
    public static Result epollCreate1(int flags) {
        return withErrno(s -> (int) EpollCreate1.H.invokeExact(s, flags));
    }

    /**
     * {@return {@code epoll_ctl(epfd, EPOLL_CTL_ADD, fd, {events, data})}}
     *
     * @param epfd the epoll descriptor
     * @param fd the descriptor to watch
     * @param events {@code EPOLL*} events
     * @param data the datum reported when {@code fd} is ready
     */
    public static Result epollAdd(int epfd, int fd, int events, long data) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment event = arena.allocate(EpollEvent.LAYOUT);
            EpollEvent.EVENTS.set(event, 0L, events);
            EpollEvent.DATA.set(event, 0L, data);
            return withErrno(s -> (int) EpollCtl.H.invokeExact(s, epfd, EPOLL_CTL_ADD, fd, event));
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
    public static Result epollWait(int epfd, long[] data, int timeoutMillis) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment events = arena.allocate(EpollEvent.LAYOUT, data.length);
            Result r = retrying(s -> (int) EpollWait.H.invokeExact(s, epfd, events, data.length, timeoutMillis));
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
    public static Result setPtracer(long pid) {
        return withErrno(s -> (int) Prctl.H.invokeExact(s, PR_SET_PTRACER, pid, 0L, 0L, 0L));
    }

    /**
     * {@return {@code posix_fallocate}: returns 0 or the error number (it does not set errno); retries on EINTR}
     *
     * @param fd the file
     * @param offset the first byte to reserve
     * @param length the number of bytes to reserve
     */
    public static int posixFallocate(int fd, long offset, long length) {
        try {
            int rc;
            do {
                rc = (int) PosixFallocate.H.invokeExact(fd, offset, length);
            } while (rc == EINTR);
            return rc;
        } catch (Throwable t) {
            throw rethrow(t);
        }
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
            return (int) Setenv.H.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), overwrite ? 1 : 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@return what the C environment holds for {@code name}, null when it is unset}
     *
     * @param name the variable's name
     */
    public static String getenv(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment now = (MemorySegment) Getenv.H.invokeExact(arena.allocateFrom(name));
            return now.equals(MemorySegment.NULL) ? null : now.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@return {@code dup2(fd, target)}: {@code target}, now a copy of {@code fd}, or -1 when it failed}
     *
     * @param fd the descriptor to copy
     * @param target the number the copy takes (an open descriptor of that number is closed first)
     */
    public static int dup2(int fd, int target) {
        try {
            return (int) Dup2.H.invokeExact(fd, target);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Ends this process at once with {@code status} ({@code _exit}): no shutdown hook, no at-exit handler of the JVM
     * or of a native library runs, and the kernel reclaims what the process held, as for a process that is killed.
     * Does not return.
     *
     * @param status the exit status
     */
    public static void exitNow(int status) {
        try {
            Exit.H.invokeExact(status);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final long SYS_FUTEX = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> 202;
        case "aarch64" -> 98;
        default -> -1;
    };
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;
    private static final boolean FUTEX = SYS_FUTEX > 0 && System.getProperty("os.name").equals("Linux")
            && !BaseSettings.NO_FUTEX.get();

    /** {@return true where {@link #futexWait} and {@link #futexWakeAll} work (Linux on x86-64 and AArch64)} */
    public static boolean hasFutex() {
        return FUTEX;
    }

    /**
     * Sleeps while the int at {@code word} (in memory shared between processes, so not a private futex) equals
     * {@code expected}, for at most {@code timeoutNanos}. Returns early on a wake-up, a signal, or when the word
     * already differs; callers re-check the word.
     *
     * @param timespec 16 bytes of scratch memory for the timeout
     * @param word the futex word
     * @param expected the value to sleep on
     * @param timeoutNanos the longest sleep
     */
    public static void futexWait(MemorySegment word, int expected, long timeoutNanos, MemorySegment timespec) {
        timespec.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        timespec.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
        try {
            long ignored = (long) Syscall6.H.invokeExact(SYS_FUTEX, word, FUTEX_WAIT, (long) expected, timespec,
                    MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Wakes every process sleeping in {@link #futexWait} on {@code word}.
     *
     * @param word the futex word
     */
    public static void futexWakeAll(MemorySegment word) {
        try {
            long ignored = (long) Syscall6.H.invokeExact(SYS_FUTEX, word, FUTEX_WAKE, (long) Integer.MAX_VALUE,
                    MemorySegment.NULL, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@return the real user id of this process} */
    public static long getuid() {
        try {
            return Integer.toUnsignedLong((int) Getuid.H.invokeExact());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@return the C library's text for an error number, e.g. "No space left on device"}
     *
     * @param errno the error number
     */
    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) Strerror.H.invokeExact(errno);
            if (s.equals(MemorySegment.NULL)) {
                return "errno " + errno;
            }
            return s.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("libc call failed: " + t, t);
    }
}
