package org.cudaipc4j.coord.fd;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.cudaipc4j.base.Layouts;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcSockets;
import org.cudaipc4j.coord.CoordinationException;

/** The C structures of Unix-socket descriptor passing (Linux, LP64), as layouts, and the calls on them. */
final class Native {
    /** {@code struct sockaddr_un}. */
    static final StructLayout SOCKADDR_UN = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sun_family"),
            MemoryLayout.sequenceLayout(108, JAVA_BYTE).withName("sun_path"));
    /** {@code struct iovec}. */
    static final StructLayout IOVEC = MemoryLayout.structLayout(ADDRESS.withName("iov_base"), JAVA_LONG.withName("iov_len"));
    /** {@code struct msghdr}. */
    static final StructLayout MSGHDR = MemoryLayout.structLayout(
            ADDRESS.withName("msg_name"),
            JAVA_INT.withName("msg_namelen"), MemoryLayout.paddingLayout(4),
            ADDRESS.withName("msg_iov"),
            JAVA_LONG.withName("msg_iovlen"),
            ADDRESS.withName("msg_control"),
            JAVA_LONG.withName("msg_controllen"),
            JAVA_INT.withName("msg_flags"), MemoryLayout.paddingLayout(4));
    /** {@code struct cmsghdr}; the data ({@code CMSG_DATA}) follows it, 8-aligned. */
    static final StructLayout CMSGHDR = MemoryLayout.structLayout(
            JAVA_LONG.withName("cmsg_len"), JAVA_INT.withName("cmsg_level"), JAVA_INT.withName("cmsg_type"));
    /** {@code struct ucred}. */
    static final StructLayout UCRED = MemoryLayout.structLayout(
            JAVA_INT.withName("pid"), JAVA_INT.withName("uid"), JAVA_INT.withName("gid"));

    static final VarHandle MSG_IOV = MSGHDR.varHandle(groupElement("msg_iov"));
    static final VarHandle MSG_IOVLEN = MSGHDR.varHandle(groupElement("msg_iovlen"));
    static final VarHandle MSG_CONTROL = MSGHDR.varHandle(groupElement("msg_control"));
    static final VarHandle MSG_CONTROLLEN = MSGHDR.varHandle(groupElement("msg_controllen"));
    static final VarHandle MSG_FLAGS = MSGHDR.varHandle(groupElement("msg_flags"));
    static final VarHandle IOV_BASE = IOVEC.varHandle(groupElement("iov_base"));
    static final VarHandle IOV_LEN = IOVEC.varHandle(groupElement("iov_len"));
    static final VarHandle CMSG_LEN = CMSGHDR.varHandle(groupElement("cmsg_len"));
    static final VarHandle CMSG_LEVEL = CMSGHDR.varHandle(groupElement("cmsg_level"));
    static final VarHandle CMSG_TYPE = CMSGHDR.varHandle(groupElement("cmsg_type"));

    /** The most descriptors one message may carry (the kernel's {@code SCM_MAX_FD}). */
    static final int MAX_FDS = 253;
    private static final long PATH_MAX = 107;

    private Native() {}

    /** {@code CMSG_SPACE(n * sizeof(int))}. */
    static long cmsgSpace(int fds) {
        return CMSGHDR.byteSize() + Layouts.alignUp(fds * 4L, 8);
    }

    /** A {@code sockaddr_un} for {@code path}, in {@code arena}. */
    static MemorySegment address(Arena arena, Path path) {
        byte[] bytes = path.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length > PATH_MAX) {
            throw new CoordinationException("socket path " + path + " is " + bytes.length
                    + " bytes long; Unix sockets allow " + PATH_MAX);
        }
        MemorySegment addr = arena.allocate(SOCKADDR_UN);
        addr.set(JAVA_SHORT, 0, (short) LibcSockets.AF_UNIX);
        MemorySegment.copy(bytes, 0, addr, JAVA_BYTE, SOCKADDR_UN.byteOffset(groupElement("sun_path")), bytes.length);
        return addr;
    }

    /** The credentials the kernel recorded for the peer of socket {@code fd}. */
    static PeerCredentials peer(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cred = arena.allocate(UCRED);
            MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, (int) UCRED.byteSize());
            Libc.Result r = LibcSockets.getsockopt(fd, LibcSockets.SOL_SOCKET, LibcSockets.SO_PEERCRED, cred, len);
            if (r.value() < 0) {
                throw new CoordinationException("cannot read the peer's credentials (SO_PEERCRED): "
                        + Libc.strerror(r.errno()));
            }
            return new PeerCredentials(Integer.toUnsignedLong(cred.get(JAVA_INT, 0)),
                    Integer.toUnsignedLong(cred.get(JAVA_INT, 4)), Integer.toUnsignedLong(cred.get(JAVA_INT, 8)));
        }
    }

    /** Two connected Unix stream sockets, close-on-exec. */
    static OwnedFd[] socketPair() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pair = arena.allocate(JAVA_INT, 2);
            Libc.Result r = LibcSockets.socketpair(LibcSockets.AF_UNIX,
                    LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0, pair);
            if (r.value() < 0) {
                throw new CoordinationException("cannot create a Unix socket pair: " + Libc.strerror(r.errno()));
            }
            return new OwnedFd[] {
                OwnedFd.fresh(pair.getAtIndex(JAVA_INT, 0)), OwnedFd.fresh(pair.getAtIndex(JAVA_INT, 1))};
        }
    }

    /** A new Unix stream socket, close-on-exec. */
    static OwnedFd socket() {
        Libc.Result r = LibcSockets.socket(LibcSockets.AF_UNIX, LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0);
        if (r.value() < 0) {
            throw new CoordinationException("cannot create a Unix socket: " + Libc.strerror(r.errno()));
        }
        return OwnedFd.fresh(r.value());
    }
}
