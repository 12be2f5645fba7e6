package org.cudaipc4j.base;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Every libc function the project calls, each declared once: the constant's name is the exported symbol, its
 * descriptor the C signature its header gives it for Linux LP64 (x86-64 and AArch64; a test checks each), and how it
 * is linked: whether errno is captured with the call, and where a variadic function's variadic arguments begin.
 * {@link LibcCalls} calls each through a handle linked from its constant.
 *
 * <p>C types map as: {@code int}, {@code unsigned int}, {@code mode_t}, {@code uid_t} and {@code socklen_t} to
 * {@code JAVA_INT}; {@code long}, {@code unsigned long}, {@code size_t}, {@code ssize_t}, {@code off_t} and
 * {@code nfds_t} to {@code JAVA_LONG}; pointers to {@code ADDRESS}. A variadic function is declared with the
 * arguments every call of the project passes: {@code syscall} with six {@code long}s, which the kernel reads
 * whatever the system call.
 */
enum LibcFunction {
    /** {@code int open(const char *path, int flags, ... mode_t mode)} */
    open("fcntl.h", Errno.CAPTURED, 2, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code int fcntl(int fd, int cmd, ...)}: called with no variadic argument ({@code F_GETFD}) */
    fcntl("fcntl.h", Errno.CAPTURED, 2, JAVA_INT, JAVA_INT, JAVA_INT),
    /** {@code int posix_fallocate(int fd, off_t offset, off_t len)}: returns the error number, errno untouched */
    posix_fallocate("fcntl.h", Errno.UNUSED, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG),
    /** {@code int fchmod(int fd, mode_t mode)} */
    fchmod("sys/stat.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, JAVA_INT),
    /** {@code int memfd_create(const char *name, unsigned int flags)} */
    memfd_create("sys/mman.h", Errno.CAPTURED, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code int close(int fd)} */
    close("unistd.h", Errno.CAPTURED, JAVA_INT, JAVA_INT),
    /** {@code int dup2(int oldfd, int newfd)} */
    dup2("unistd.h", Errno.UNUSED, JAVA_INT, JAVA_INT, JAVA_INT),
    /** {@code uid_t getuid(void)} */
    getuid("unistd.h", Errno.UNUSED, JAVA_INT),
    /** {@code long syscall(long number, ... long a1, long a2, long a3, long a4, long a5, long a6)} */
    syscall("unistd.h", Errno.CAPTURED, 1, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_LONG),
    /** {@code void _exit(int status)} */
    _exit("unistd.h", Errno.UNUSED, null, JAVA_INT),
    /** {@code char *strerror(int errnum)} */
    strerror("string.h", Errno.UNUSED, ADDRESS, JAVA_INT),
    /** {@code int setenv(const char *name, const char *value, int overwrite)} */
    setenv("stdlib.h", Errno.UNUSED, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
    /** {@code char *getenv(const char *name)} */
    getenv("stdlib.h", Errno.UNUSED, ADDRESS, ADDRESS),
    /** {@code int socket(int domain, int type, int protocol)} */
    socket("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
    /** {@code int socketpair(int domain, int type, int protocol, int sv[2])} */
    socketpair("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS),
    /** {@code int bind(int fd, const struct sockaddr *addr, socklen_t len)} */
    bind("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code int listen(int fd, int backlog)} */
    listen("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, JAVA_INT),
    /** {@code int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)} */
    accept4("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
    /** {@code int connect(int fd, const struct sockaddr *addr, socklen_t len)} */
    connect("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)} */
    sendmsg("sys/socket.h", Errno.CAPTURED, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code ssize_t recvmsg(int fd, struct msghdr *msg, int flags)} */
    recvmsg("sys/socket.h", Errno.CAPTURED, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code int getsockopt(int fd, int level, int name, void *value, socklen_t *len)} */
    getsockopt("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code int shutdown(int fd, int how)} */
    shutdown("sys/socket.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, JAVA_INT),
    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)} */
    poll("poll.h", Errno.CAPTURED, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
    /** {@code int epoll_create1(int flags)} */
    epoll_create1("sys/epoll.h", Errno.CAPTURED, JAVA_INT, JAVA_INT),
    /** {@code int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)} */
    epoll_ctl("sys/epoll.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS),
    /** {@code int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)} */
    epoll_wait("sys/epoll.h", Errno.CAPTURED, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /**
     * {@code int prctl(int option, ... unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)}
     */
    prctl("sys/prctl.h", Errno.CAPTURED, 1, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);

    /** Whether a call captures errno: only where the project reads it, since capturing costs each call a store. */
    enum Errno {
        /** Captured right after the call; its {@link LibcCalls} method takes the capture segment first. */
        CAPTURED,
        /** Not captured: the function does not set it, or the project does not read it. */
        UNUSED
    }

    private static final int FIXED = -1;

    private final String header;
    private final Errno errno;
    private final int firstVariadic;
    private final FunctionDescriptor descriptor;

    /** A function that is not variadic; {@code returns} is null for one that returns {@code void}. */
    LibcFunction(String header, Errno errno, MemoryLayout returns, MemoryLayout... parameters) {
        this(header, errno, FIXED, returns, parameters);
    }

    LibcFunction(String header, Errno errno, int firstVariadic, MemoryLayout returns, MemoryLayout... parameters) {
        this.header = header;
        this.errno = errno;
        this.firstVariadic = firstVariadic;
        this.descriptor = returns == null ? FunctionDescriptor.ofVoid(parameters)
                : FunctionDescriptor.of(returns, parameters);
    }

    /** {@return the header that declares it, such as {@code sys/socket.h}} */
    String header() {
        return header;
    }

    /** {@return the C signature as an FFM descriptor} */
    FunctionDescriptor descriptor() {
        return descriptor;
    }

    /** {@return whether errno is captured with each call} */
    boolean capturesErrno() {
        return errno == Errno.CAPTURED;
    }

    /** {@return the index of the first variadic argument, -1 for a function that is not variadic} */
    int firstVariadic() {
        return firstVariadic;
    }

    /** {@return the options it is linked with: errno's capture, where the variadic arguments begin} */
    Linker.Option[] options() {
        List<Linker.Option> options = new ArrayList<>(2);
        if (capturesErrno()) {
            options.add(Linker.Option.captureCallState("errno"));
        }
        if (firstVariadic != FIXED) {
            options.add(Linker.Option.firstVariadicArg(firstVariadic));
        }
        return options.toArray(Linker.Option[]::new);
    }
}
