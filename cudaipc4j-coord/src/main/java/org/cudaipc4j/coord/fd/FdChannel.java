package org.cudaipc4j.coord.fd;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.base.Layouts;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcSockets;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.Durations;
import org.cudaipc4j.coord.IdleStrategy;

/**
 * One end of a connected Unix stream socket that carries messages with file descriptors ({@code SCM_RIGHTS}): the
 * way to hand a VMM allocation's or a memory pool's descriptor to another process, in any PID namespace that can
 * reach the socket. Made by {@link FdServer#accept} or {@link #connect}; the peer is checked to run as this user.
 *
 * <p>A message is a 12-byte header (magic {@code "CIFD"}, payload length, descriptor count; little-endian), sent
 * with the descriptors attached, then the payload. Descriptors received are close-on-exec and owned by the
 * {@link FdMessage}; a message whose descriptors did not all arrive is refused and what did arrive is closed.
 *
 * <p>One thread may send while another receives; two threads must not send (or receive) at once.
 */
public final class FdChannel implements AutoCloseable {
    private static final ValueLayout.OfInt JAVA_INT_LE = JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** "CIFD" read as a little-endian int. */
    static final int MAGIC = 0x4446_4943;
    /** The largest payload accepted. */
    public static final int MAX_PAYLOAD = 16 << 20;
    /** A message's header, sent with its descriptors, before its payload. */
    static final StructLayout HEADER = MemoryLayout.structLayout(JAVA_INT_LE.withName("magic"),
            JAVA_INT_LE.withName("length"), JAVA_INT_LE.withName("fds")).withName("FdMessageHeader");
    private static final VarHandle HEADER_MAGIC = HEADER.varHandle(MemoryLayout.PathElement.groupElement("magic"));
    private static final VarHandle HEADER_LENGTH = HEADER.varHandle(MemoryLayout.PathElement.groupElement("length"));
    private static final VarHandle HEADER_FDS = HEADER.varHandle(MemoryLayout.PathElement.groupElement("fds"));

    private final OwnedFd fd;
    private final PeerCredentials peer;
    /**
     * Why an earlier receive stopped inside a message, or null: the rest of that message is still in the stream,
     * so what follows cannot be read as messages.
     */
    private volatile String outOfStep;

    FdChannel(OwnedFd fd, PeerCredentials peer) {
        this.fd = fd;
        this.peer = peer;
    }

    /**
     * Connects to the {@link FdServer} listening at {@code socket}, waiting up to {@code timeout} for it to appear
     * (its process may still be starting), and checks that it runs as this user.
     *
     * @param socket the server's socket path
     * @param timeout how long to wait for the socket to accept
     * @return the connected channel, owned by the caller
     * @throws CoordinationException when it cannot connect in time or the listener runs as another user
     */
    public static FdChannel connect(Path socket, Duration timeout) {
        Deadline deadline = Deadline.after(timeout, "the connect timeout");
        // The server may not be listening yet: try again, a little later each time.
        IdleStrategy idle = IdleStrategy.parking(Duration.ofMillis(1), Duration.ofMillis(20));
        while (true) {
            OwnedFd fd = Native.socket();
            Libc.Result r;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment address = Native.address(arena, socket);
                r = LibcSockets.connect(fd.value(), address, (int) Native.SOCKADDR_UN.byteSize());
            } catch (RuntimeException e) {
                fd.close();
                throw e;
            }
            if (r.value() == 0) {
                try {
                    return new FdChannel(fd, FdServer.checkPeer(fd.value(), "listener", socket));
                } catch (RuntimeException e) {
                    fd.close();
                    throw e;
                }
            }
            fd.close();
            if (r.errno() != Libc.ENOENT && r.errno() != Libc.ECONNREFUSED) {
                throw new CoordinationException("cannot connect to " + socket + ": " + Libc.strerror(r.errno()));
            }
            if (deadline.hasPassed()) {
                throw new CoordinationException("no descriptor server at " + socket + " within "
                        + Durations.format(timeout) + " (" + Libc.strerror(r.errno()) + ")");
            }
            try {
                idle.idleInterruptibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CoordinationException("interrupted while connecting");
            }
        }
    }

    /** {@return who is at the other end, as the kernel vouched at connect time} */
    public PeerCredentials peer() {
        return peer;
    }

    /**
     * Sends {@code payload} with copies of {@code fds} attached: the receiver gets them as the {@link OwnedFd}s of
     * its {@link FdMessage}, new descriptors for the same open files; the caller keeps owning its own.
     *
     * @param payload the message's bytes
     * @param fds descriptors to send along
     * @throws CoordinationException when the peer is gone
     * @throws IllegalArgumentException when the message is too large
     * @throws IllegalStateException when one of {@code fds} is already closed
     */
    public void send(byte[] payload, OwnedFd... fds) {
        List<Integer> numbers = new ArrayList<>(fds.length);
        for (OwnedFd fd : fds) {
            numbers.add(fd.value());
        }
        send(payload, numbers);
    }

    /**
     * As {@link #send(byte[], OwnedFd...)}, for descriptors that something else owns and hands out by number, such
     * as an exported allocation's file descriptors; they must stay open until this returns.
     *
     * @param payload the message's bytes
     * @param fds descriptor numbers to send along
     * @throws CoordinationException when the peer is gone
     * @throws IllegalArgumentException when the message is too large
     */
    public void send(byte[] payload, List<Integer> fds) {
        if (payload.length > MAX_PAYLOAD || fds.size() > Native.MAX_FDS) {
            throw new IllegalArgumentException("a message carries at most " + MAX_PAYLOAD + " bytes and "
                    + Native.MAX_FDS + " descriptors, got " + payload.length + " and " + fds.size());
        }
        try (Arena arena = Arena.ofConfined()) {
            transmit(framed(arena, payload, fds.size()), fds);
        }
    }

    /** {@code payload} after its {@link #HEADER}, announcing {@code fdCount} descriptors. */
    static MemorySegment framed(Arena arena, byte[] payload, int fdCount) {
        MemorySegment data = arena.allocate(HEADER.byteSize() + payload.length, 8);
        HEADER_MAGIC.set(data, 0L, MAGIC);
        HEADER_LENGTH.set(data, 0L, payload.length);
        HEADER_FDS.set(data, 0L, fdCount);
        MemorySegment.copy(payload, 0, data, JAVA_BYTE, HEADER.byteSize(), payload.length);
        return data;
    }

    /** Sends {@code data} (a header and its payload) with {@code fds} attached to its first byte. */
    void transmit(MemorySegment data, List<Integer> fds) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment control = fds.isEmpty() ? MemorySegment.NULL : arena.allocate(Native.cmsgSpace(fds.size()), 8);
            if (!fds.isEmpty()) {
                Native.CMSG_LEN.set(control, 0L, Native.CMSGHDR.byteSize() + 4L * fds.size());
                Native.CMSG_LEVEL.set(control, 0L, LibcSockets.SOL_SOCKET);
                Native.CMSG_TYPE.set(control, 0L, LibcSockets.SCM_RIGHTS);
                for (int i = 0; i < fds.size(); i++) {
                    control.set(JAVA_INT, Native.CMSGHDR.byteSize() + 4L * i, fds.get(i));
                }
            }
            long sent = 0;
            long total = data.byteSize();
            while (sent < total) {
                MemorySegment msg = message(arena, data.asSlice(sent), sent == 0 ? control : MemorySegment.NULL);
                Libc.Result r = LibcSockets.sendmsg(fd.value(), msg, LibcSockets.MSG_NOSIGNAL);
                if (r.value() < 0) {
                    throw new CoordinationException("cannot send to " + describePeer() + ": " + Libc.strerror(r.errno()));
                }
                sent += Integer.toUnsignedLong(r.value());
            }
        }
    }

    /**
     * Receives the next message, waiting at most {@code timeout}.
     *
     * @param timeout how long to wait
     * @return the message; the caller owns its descriptors
     * @throws CoordinationException at the timeout, when the peer closed the socket, when the message is not one
     *                               of ours, announces more than {@value #MAX_PAYLOAD} bytes or more than 253
     *                               descriptors, or lost descriptors on the way, or carried some outside its header
     *                               (every descriptor that came is closed); after one of these in the middle of a
     *                               message, every later receive is refused too
     */
    public FdMessage receive(Duration timeout) {
        if (outOfStep != null) {
            throw new CoordinationException("the connection to " + describePeer() + " is out of step since an earlier"
                    + " message was refused (" + outOfStep + ")");
        }
        Deadline deadline = Deadline.after(timeout, "the receive timeout");
        List<OwnedFd> received = new ArrayList<>();
        long consumed = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(HEADER);
            MemorySegment control = arena.allocate(Native.cmsgSpace(Native.MAX_FDS), 8);
            long got = 0;
            while (got < HEADER.byteSize()) {
                awaitReadable(deadline, "a message");
                MemorySegment msg = message(arena, header.asSlice(got), got == 0 ? control : MemorySegment.NULL);
                Libc.Result r = LibcSockets.recvmsg(fd.value(), msg, LibcSockets.MSG_CMSG_CLOEXEC);
                if (r.value() < 0) {
                    throw new CoordinationException("cannot receive from " + describePeer() + ": "
                            + Libc.strerror(r.errno()));
                }
                consumed += Math.max(0, r.value());
                if (got == 0) {
                    collectFds(msg, control, received);
                } else {
                    refuseLateFds(msg);
                }
                if (r.value() == 0) {
                    throw new CoordinationException(describePeer() + " closed the connection"
                            + (got == 0 ? "" : " in the middle of a message"));
                }
                got += r.value();
            }
            int magic = (int) HEADER_MAGIC.get(header, 0L);
            if (magic != MAGIC) {
                throw new CoordinationException("a message from " + describePeer() + " is not a descriptor message"
                        + " (magic 0x" + Integer.toHexString(magic) + ")");
            }
            int length = (int) HEADER_LENGTH.get(header, 0L);
            int expectedFds = (int) HEADER_FDS.get(header, 0L);
            if (length < 0 || length > MAX_PAYLOAD || expectedFds < 0 || expectedFds > Native.MAX_FDS) {
                throw new CoordinationException("a message from " + describePeer() + " announces " + length
                        + " bytes and " + expectedFds + " descriptors (at most " + MAX_PAYLOAD + " and "
                        + Native.MAX_FDS + "): refused");
            }
            if (received.size() != expectedFds) {
                throw new CoordinationException("a message from " + describePeer() + " announced " + expectedFds
                        + " descriptors but " + received.size() + " arrived");
            }
            MemorySegment payload = arena.allocate(Math.max(1, length));
            long read = 0;
            while (read < length) {
                awaitReadable(deadline, "the rest of a message");
                MemorySegment msg = message(arena, payload.asSlice(read, length - read), MemorySegment.NULL);
                Libc.Result r = LibcSockets.recvmsg(fd.value(), msg, LibcSockets.MSG_CMSG_CLOEXEC);
                if (r.value() <= 0) {
                    throw new CoordinationException(describePeer() + (r.value() == 0 ? " closed the connection"
                            : " failed: " + Libc.strerror(r.errno())) + " after " + read + " of " + length + " bytes");
                }
                consumed += r.value();
                refuseLateFds(msg);
                read += r.value();
            }
            return new FdMessage(payload.asSlice(0, length).toArray(JAVA_BYTE), received);
        } catch (RuntimeException e) {
            received.forEach(OwnedFd::close);
            if (consumed > 0) {
                outOfStep = e.getMessage();
            }
            throw e;
        }
    }

    /**
     * A read without room for descriptors: any that came with its bytes were closed by the kernel ({@code
     * MSG_CTRUNC}), which a message of ours never causes (its descriptors come with the first byte of its header).
     */
    private void refuseLateFds(MemorySegment msg) {
        if (((int) Native.MSG_FLAGS.get(msg, 0L) & LibcSockets.MSG_CTRUNC) != 0) {
            throw new CoordinationException("a message from " + describePeer() + " carried descriptors after the"
                    + " start of its header: refused");
        }
    }

    /** A msghdr over {@code data} with {@code control} (or none), allocated in {@code arena}. */
    private static MemorySegment message(Arena arena, MemorySegment data, MemorySegment control) {
        MemorySegment iov = arena.allocate(Native.IOVEC);
        Native.IOV_BASE.set(iov, 0L, data);
        Native.IOV_LEN.set(iov, 0L, data.byteSize());
        MemorySegment msg = arena.allocate(Native.MSGHDR);
        Native.MSG_IOV.set(msg, 0L, iov);
        Native.MSG_IOVLEN.set(msg, 0L, 1L);
        Native.MSG_CONTROL.set(msg, 0L, control);
        Native.MSG_CONTROLLEN.set(msg, 0L, control.equals(MemorySegment.NULL) ? 0L : control.byteSize());
        return msg;
    }

    /** Takes ownership of the descriptors a recvmsg delivered ({@code SCM_RIGHTS}; one control message at most). */
    private void collectFds(MemorySegment msg, MemorySegment control, List<OwnedFd> into) {
        long controlLength = (long) Native.MSG_CONTROLLEN.get(msg, 0L);
        boolean truncated = ((int) Native.MSG_FLAGS.get(msg, 0L) & LibcSockets.MSG_CTRUNC) != 0;
        long at = 0;
        while (at + Native.CMSGHDR.byteSize() <= controlLength) {
            long len = (long) Native.CMSG_LEN.get(control, at);
            if (len < Native.CMSGHDR.byteSize() || at + len > controlLength) {
                break;
            }
            if ((int) Native.CMSG_LEVEL.get(control, at) == LibcSockets.SOL_SOCKET
                    && (int) Native.CMSG_TYPE.get(control, at) == LibcSockets.SCM_RIGHTS) {
                int count = (int) ((len - Native.CMSGHDR.byteSize()) / 4);
                for (int i = 0; i < count; i++) {
                    into.add(OwnedFd.fresh(control.get(JAVA_INT, at + Native.CMSGHDR.byteSize() + 4L * i)));
                }
            }
            at += Layouts.alignUp(len, 8);
        }
        if (truncated) {
            throw new CoordinationException("a message from " + describePeer() + " carried more than "
                    + Native.MAX_FDS + " descriptors: refused");
        }
    }

    private void awaitReadable(Deadline deadline, String what) {
        while (true) {
            // A slice at a time: a poll that blocked for all that is left would be taken for a pause (Deadline).
            long slice = deadline.nextWait().toMillis();
            Libc.Result r = Libc.poll(fd.value(), Libc.POLLIN, (int) Math.min(Integer.MAX_VALUE, slice));
            if (r.value() > 0) {
                return;
            }
            if (r.value() < 0) {
                throw new CoordinationException("cannot wait for " + describePeer() + ": " + Libc.strerror(r.errno()));
            }
            if (deadline.hasPassed()) {
                throw new CoordinationException(deadline.timedOut(what + " from " + describePeer()));
            }
        }
    }

    private String describePeer() {
        return "the peer (pid " + peer.pid() + ")";
    }


    /** The socket's descriptor, while open (the package's tests check that it is closed). */
    int descriptor() {
        return fd.value();
    }

    /** Closes the socket; the peer's next receive sees the end of the stream. Idempotent. */
    @Override
    public void close() {
        fd.close();
    }
}
