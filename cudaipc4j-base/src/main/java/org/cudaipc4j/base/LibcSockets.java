package org.cudaipc4j.base;

import java.lang.foreign.MemorySegment;

/**
 * libc's calls on Unix sockets the JDK has no API for: sockets that carry descriptors ({@code SCM_RIGHTS}) and tell
 * the peer's credentials. Linux only; see {@link Libc}.
 */
public final class LibcSockets {
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
    /** Linux's {@code SHUT_RDWR}. */
    public static final int SHUT_RDWR = 2;

    private LibcSockets() {}

    /**
     * {@return {@code socket(domain, type, protocol)}; value is the new descriptor}
     *
     * @param domain the address family, such as {@link #AF_UNIX}
     * @param type the socket type and flags, such as {@link #SOCK_STREAM}
     * @param protocol 0 for the family's default
     */
    public static Libc.Result socket(int domain, int type, int protocol) {
        return Libc.withErrno(s -> LibcCalls.socket(s, domain, type, protocol));
    }

    /**
     * {@return {@code socketpair}: the two descriptors land in {@code pair} (two ints)}
     *
     * @param domain the address family
     * @param type the socket type and flags
     * @param protocol 0 for the family's default
     * @param pair where the two descriptors are written
     */
    public static Libc.Result socketpair(int domain, int type, int protocol, MemorySegment pair) {
        return Libc.withErrno(s -> LibcCalls.socketpair(s, domain, type, protocol, pair));
    }

    /**
     * {@return {@code bind(fd, address, length)}}
     *
     * @param fd the socket
     * @param address a {@code struct sockaddr}
     * @param length the address's length in bytes
     */
    public static Libc.Result bind(int fd, MemorySegment address, int length) {
        return Libc.withErrno(s -> LibcCalls.bind(s, fd, address, length));
    }

    /**
     * {@return {@code listen(fd, backlog)}}
     *
     * @param fd the socket
     * @param backlog the longest queue of pending connections
     */
    public static Libc.Result listen(int fd, int backlog) {
        return Libc.withErrno(s -> LibcCalls.listen(s, fd, backlog));
    }

    /**
     * {@return {@code accept4(fd, NULL, NULL, flags)}, retried on EINTR; value is the new descriptor}
     *
     * @param fd the listening socket
     * @param flags {@code SOCK_*} flags for the new descriptor
     */
    public static Libc.Result accept4(int fd, int flags) {
        return Libc.retrying(s -> LibcCalls.accept4(s, fd, MemorySegment.NULL, MemorySegment.NULL, flags));
    }

    /**
     * {@return {@code connect(fd, address, length)}, retried on EINTR}
     *
     * @param fd the socket
     * @param address a {@code struct sockaddr}
     * @param length the address's length in bytes
     */
    public static Libc.Result connect(int fd, MemorySegment address, int length) {
        return Libc.retrying(s -> LibcCalls.connect(s, fd, address, length));
    }

    /**
     * {@return {@code sendmsg}; value is the number of bytes sent (it fits an int here)}
     *
     * @param fd the socket
     * @param msghdr a {@code struct msghdr}
     * @param flags {@code MSG_*} flags
     */
    public static Libc.Result sendmsg(int fd, MemorySegment msghdr, int flags) {
        return Libc.retrying(s -> LibcCalls.sendmsg(s, fd, msghdr, flags));
    }

    /**
     * {@return {@code recvmsg}; value is the number of bytes received, 0 at end of stream}
     *
     * @param fd the socket
     * @param msghdr a {@code struct msghdr} to fill
     * @param flags {@code MSG_*} flags
     */
    public static Libc.Result recvmsg(int fd, MemorySegment msghdr, int flags) {
        return Libc.retrying(s -> LibcCalls.recvmsg(s, fd, msghdr, flags));
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
    public static Libc.Result getsockopt(int fd, int level, int name, MemorySegment value, MemorySegment length) {
        return Libc.withErrno(s -> LibcCalls.getsockopt(s, fd, level, name, value, length));
    }

    /**
     * {@return {@code shutdown(fd, how)}}
     *
     * @param fd the socket
     * @param how such as {@link #SHUT_RDWR}
     */
    public static Libc.Result shutdown(int fd, int how) {
        return Libc.withErrno(s -> LibcCalls.shutdown(s, fd, how));
    }
}
