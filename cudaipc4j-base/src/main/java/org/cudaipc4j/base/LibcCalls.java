package org.cudaipc4j.base;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The calls into libc, one static method per {@link LibcFunction}, named as the C function and of its declared types:
 * each returns what C returns, unchecked; a function that captures errno takes the capture segment
 * ({@link CallScratch}) first. The typed calls the libraries use ({@link Libc}, {@link LibcFiles},
 * {@link LibcSockets}, {@link LibcPidfds}, {@link LibcFutex}) are written over these. Each invokes the
 * {@code static final} handle of a holder class of its own with {@code invokeExact}, so nothing is boxed and the JIT
 * sees a constant; a holder links its function on the first call (linking a downcall costs milliseconds, and a
 * process uses only some of them: a child opening a segment never creates one).
 */
final class LibcCalls {
    private static final SymbolLookup LIBC = Linker.nativeLinker().defaultLookup();

    private LibcCalls() {}

    private static MethodHandle link(LibcFunction function) {
        return Downcalls.link(LIBC, function.name(), function.descriptor(),
                () -> new UnsupportedOperationException("libc function " + function.name() + " not found"),
                function.options());
    }

    private static RuntimeException unexpected(LibcFunction function, Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(function.name() + " failed: " + t, t);
    }

    private static final class Open {
        static final MethodHandle H = link(LibcFunction.open);
    }

    static int open(MemorySegment errno, MemorySegment path, int flags, int mode) {
        try {
            return (int) Open.H.invokeExact(errno, path, flags, mode);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.open, t);
        }
    }

    private static final class Fcntl {
        static final MethodHandle H = link(LibcFunction.fcntl);
    }

    static int fcntl(MemorySegment errno, int fd, int cmd) {
        try {
            return (int) Fcntl.H.invokeExact(errno, fd, cmd);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.fcntl, t);
        }
    }

    private static final class PosixFallocate {
        static final MethodHandle H = link(LibcFunction.posix_fallocate);
    }

    static int posix_fallocate(int fd, long offset, long length) {
        try {
            return (int) PosixFallocate.H.invokeExact(fd, offset, length);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.posix_fallocate, t);
        }
    }

    private static final class Fchmod {
        static final MethodHandle H = link(LibcFunction.fchmod);
    }

    static int fchmod(MemorySegment errno, int fd, int mode) {
        try {
            return (int) Fchmod.H.invokeExact(errno, fd, mode);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.fchmod, t);
        }
    }

    private static final class MemfdCreate {
        static final MethodHandle H = link(LibcFunction.memfd_create);
    }

    static int memfd_create(MemorySegment errno, MemorySegment name, int flags) {
        try {
            return (int) MemfdCreate.H.invokeExact(errno, name, flags);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.memfd_create, t);
        }
    }

    private static final class Close {
        static final MethodHandle H = link(LibcFunction.close);
    }

    static int close(MemorySegment errno, int fd) {
        try {
            return (int) Close.H.invokeExact(errno, fd);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.close, t);
        }
    }

    private static final class Dup2 {
        static final MethodHandle H = link(LibcFunction.dup2);
    }

    static int dup2(int fd, int target) {
        try {
            return (int) Dup2.H.invokeExact(fd, target);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.dup2, t);
        }
    }

    private static final class Getuid {
        static final MethodHandle H = link(LibcFunction.getuid);
    }

    static int getuid() {
        try {
            return (int) Getuid.H.invokeExact();
        } catch (Throwable t) {
            throw unexpected(LibcFunction.getuid, t);
        }
    }

    private static final class Syscall {
        static final MethodHandle H = link(LibcFunction.syscall);
    }

    static long syscall(MemorySegment errno, long number, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            return (long) Syscall.H.invokeExact(errno, number, a1, a2, a3, a4, a5, a6);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.syscall, t);
        }
    }

    private static final class Exit {
        static final MethodHandle H = link(LibcFunction._exit);
    }

    static void _exit(int status) {
        try {
            Exit.H.invokeExact(status);
        } catch (Throwable t) {
            throw unexpected(LibcFunction._exit, t);
        }
    }

    private static final class Strerror {
        static final MethodHandle H = link(LibcFunction.strerror);
    }

    static MemorySegment strerror(int errnum) {
        try {
            return (MemorySegment) Strerror.H.invokeExact(errnum);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.strerror, t);
        }
    }

    private static final class Setenv {
        static final MethodHandle H = link(LibcFunction.setenv);
    }

    static int setenv(MemorySegment name, MemorySegment value, int overwrite) {
        try {
            return (int) Setenv.H.invokeExact(name, value, overwrite);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.setenv, t);
        }
    }

    private static final class Getenv {
        static final MethodHandle H = link(LibcFunction.getenv);
    }

    static MemorySegment getenv(MemorySegment name) {
        try {
            return (MemorySegment) Getenv.H.invokeExact(name);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.getenv, t);
        }
    }

    private static final class Socket {
        static final MethodHandle H = link(LibcFunction.socket);
    }

    static int socket(MemorySegment errno, int domain, int type, int protocol) {
        try {
            return (int) Socket.H.invokeExact(errno, domain, type, protocol);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.socket, t);
        }
    }

    private static final class Socketpair {
        static final MethodHandle H = link(LibcFunction.socketpair);
    }

    static int socketpair(MemorySegment errno, int domain, int type, int protocol, MemorySegment pair) {
        try {
            return (int) Socketpair.H.invokeExact(errno, domain, type, protocol, pair);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.socketpair, t);
        }
    }

    private static final class Bind {
        static final MethodHandle H = link(LibcFunction.bind);
    }

    static int bind(MemorySegment errno, int fd, MemorySegment address, int length) {
        try {
            return (int) Bind.H.invokeExact(errno, fd, address, length);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.bind, t);
        }
    }

    private static final class Listen {
        static final MethodHandle H = link(LibcFunction.listen);
    }

    static int listen(MemorySegment errno, int fd, int backlog) {
        try {
            return (int) Listen.H.invokeExact(errno, fd, backlog);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.listen, t);
        }
    }

    private static final class Accept4 {
        static final MethodHandle H = link(LibcFunction.accept4);
    }

    static int accept4(MemorySegment errno, int fd, MemorySegment address, MemorySegment length, int flags) {
        try {
            return (int) Accept4.H.invokeExact(errno, fd, address, length, flags);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.accept4, t);
        }
    }

    private static final class Connect {
        static final MethodHandle H = link(LibcFunction.connect);
    }

    static int connect(MemorySegment errno, int fd, MemorySegment address, int length) {
        try {
            return (int) Connect.H.invokeExact(errno, fd, address, length);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.connect, t);
        }
    }

    private static final class Sendmsg {
        static final MethodHandle H = link(LibcFunction.sendmsg);
    }

    static long sendmsg(MemorySegment errno, int fd, MemorySegment msghdr, int flags) {
        try {
            return (long) Sendmsg.H.invokeExact(errno, fd, msghdr, flags);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.sendmsg, t);
        }
    }

    private static final class Recvmsg {
        static final MethodHandle H = link(LibcFunction.recvmsg);
    }

    static long recvmsg(MemorySegment errno, int fd, MemorySegment msghdr, int flags) {
        try {
            return (long) Recvmsg.H.invokeExact(errno, fd, msghdr, flags);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.recvmsg, t);
        }
    }

    private static final class Getsockopt {
        static final MethodHandle H = link(LibcFunction.getsockopt);
    }

    static int getsockopt(MemorySegment errno, int fd, int level, int name, MemorySegment value, MemorySegment length) {
        try {
            return (int) Getsockopt.H.invokeExact(errno, fd, level, name, value, length);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.getsockopt, t);
        }
    }

    private static final class Shutdown {
        static final MethodHandle H = link(LibcFunction.shutdown);
    }

    static int shutdown(MemorySegment errno, int fd, int how) {
        try {
            return (int) Shutdown.H.invokeExact(errno, fd, how);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.shutdown, t);
        }
    }

    private static final class Poll {
        static final MethodHandle H = link(LibcFunction.poll);
    }

    static int poll(MemorySegment errno, MemorySegment fds, long count, int timeout) {
        try {
            return (int) Poll.H.invokeExact(errno, fds, count, timeout);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.poll, t);
        }
    }

    private static final class EpollCreate1 {
        static final MethodHandle H = link(LibcFunction.epoll_create1);
    }

    static int epoll_create1(MemorySegment errno, int flags) {
        try {
            return (int) EpollCreate1.H.invokeExact(errno, flags);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.epoll_create1, t);
        }
    }

    private static final class EpollCtl {
        static final MethodHandle H = link(LibcFunction.epoll_ctl);
    }

    static int epoll_ctl(MemorySegment errno, int epfd, int op, int fd, MemorySegment event) {
        try {
            return (int) EpollCtl.H.invokeExact(errno, epfd, op, fd, event);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.epoll_ctl, t);
        }
    }

    private static final class EpollWait {
        static final MethodHandle H = link(LibcFunction.epoll_wait);
    }

    static int epoll_wait(MemorySegment errno, int epfd, MemorySegment events, int max, int timeout) {
        try {
            return (int) EpollWait.H.invokeExact(errno, epfd, events, max, timeout);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.epoll_wait, t);
        }
    }

    private static final class Prctl {
        static final MethodHandle H = link(LibcFunction.prctl);
    }

    static int prctl(MemorySegment errno, int option, long a2, long a3, long a4, long a5) {
        try {
            return (int) Prctl.H.invokeExact(errno, option, a2, a3, a4, a5);
        } catch (Throwable t) {
            throw unexpected(LibcFunction.prctl, t);
        }
    }
}
