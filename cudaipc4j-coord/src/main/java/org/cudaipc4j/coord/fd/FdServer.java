package org.cudaipc4j.coord.fd;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.function.Supplier;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcSockets;
import org.cudaipc4j.coord.CoordinationException;
import org.cudaipc4j.coord.Deadline;
import org.cudaipc4j.coord.FreshName;
import org.cudaipc4j.coord.SharedSegment;
import org.cudaipc4j.coord.internal.ShutdownRemovals;

/**
 * A Unix socket that hands out file descriptors to the processes of one group, private to this user: it lives in a
 * directory of mode 0700 (in the shared-memory directory, named like a segment, {@code cudaipc4j-<pid>-<random>.fds},
 * or in a directory the caller names, such as a volume two containers share), and every connection is checked with
 * {@code SO_PEERCRED} to come from this user. The creator removes the socket and its directory on {@link #close()} or
 * at JVM shutdown; {@link SharedSegment#reapStale()} removes those of a creator that was killed.
 *
 * <p>{@link #accept} is for one thread at a time; {@link #close()} may be called from any thread.
 */
public final class FdServer implements AutoCloseable {
    private static final String SOCKET = "s";

    private final OwnedFd fd;
    private final Path directory;
    private final Path socket;
    private final boolean ownsDirectory;
    /** Removes the socket (and the private directory) if the JVM shuts down before {@link #close()}. */
    private final ShutdownRemovals.Removal removal = this::removeFiles;
    private volatile boolean closed;
    /** Held (shared) while accept uses the descriptor, exclusively while close() closes it. */
    private final java.util.concurrent.locks.ReentrantReadWriteLock inUse =
            new java.util.concurrent.locks.ReentrantReadWriteLock();

    private FdServer(OwnedFd fd, Path directory, Path socket, boolean ownsDirectory) {
        this.fd = fd;
        this.directory = directory;
        this.socket = socket;
        this.ownsDirectory = ownsDirectory;
    }

    /**
     * {@return a server in a new private directory (mode 0700) of the shared-memory directory, named like a segment
     * ({@link FreshName}: a name that is taken makes it pick another), removed with the socket on {@link #close()}}
     */
    public static FdServer open() {
        return openPrivate(() -> SharedSegment.newName(null) + SharedSegment.SOCKET_DIRECTORY_SUFFIX);
    }

    /** As {@link #open()}, in the first directory name of {@code names} that is free: tests give taken ones. */
    static FdServer openPrivate(Supplier<String> names) {
        return ShutdownRemovals.make(() -> FreshName.make(names, name -> {
            Path dir = SharedSegment.directory().resolve(name);
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException taken) {
                throw taken;
            } catch (IOException e) {
                throw new CoordinationException("cannot create the socket directory " + dir + ": " + e.getMessage(),
                        e);
            }
            return kept(listen(dir, dir.resolve(SOCKET), true));
        }), () -> refusedInShutdown(SharedSegment.directory()));
    }

    /**
     * {@return a server whose socket is {@code socket}, in a directory that already exists and that only this user can
     * enter (mode 0700, as a volume two containers share should be)}
     *
     * @param socket the socket's path
     * @throws CoordinationException when the directory is missing or others may enter it, or the socket exists
     */
    public static FdServer open(Path socket) {
        Path dir = socket.toAbsolutePath().getParent();
        try {
            String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(dir));
            if (!mode.endsWith("------")) {
                throw new CoordinationException("the socket directory " + dir + " has mode " + mode
                        + "; other users could reach the socket: make it rwx------ (chmod 700)");
            }
        } catch (IOException e) {
            throw new CoordinationException("cannot use the socket directory " + dir + ": " + e.getMessage(), e);
        }
        return ShutdownRemovals.make(() -> kept(listen(dir, socket.toAbsolutePath(), false)),
                () -> refusedInShutdown(socket));
    }

    private static FdServer kept(FdServer server) {
        ShutdownRemovals.keep(server.removal);
        return server;
    }

    private static CoordinationException refusedInShutdown(Path socket) {
        return new CoordinationException("cannot open a socket at " + socket + ": this JVM is shutting down");
    }

    private static FdServer listen(Path dir, Path socket, boolean ownsDirectory) {
        OwnedFd fd = null;
        boolean bound = false; // a socket file that is there and not ours (EADDRINUSE) is left alone
        try (Arena arena = Arena.ofConfined()) {
            fd = Native.socket();
            MemorySegment address = Native.address(arena, socket);
            Libc.Result bind = LibcSockets.bind(fd.value(), address, (int) Native.SOCKADDR_UN.byteSize());
            if (bind.value() < 0) {
                throw new CoordinationException("cannot bind a socket at " + socket + ": "
                        + Libc.strerror(bind.errno()));
            }
            bound = true;
            Libc.Result listening = LibcSockets.listen(fd.value(), 128);
            if (listening.value() < 0) {
                throw new CoordinationException("cannot listen at " + socket + ": " + Libc.strerror(listening.errno()));
            }
            return new FdServer(fd, dir, socket, ownsDirectory);
        } catch (RuntimeException e) {
            if (fd != null) {
                fd.close();
            }
            try {
                if (bound) {
                    Files.deleteIfExists(socket);
                }
                if (ownsDirectory) {
                    Files.deleteIfExists(dir);
                }
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The listening socket's descriptor, while open (the package's tests check that it is closed). */
    int descriptor() {
        return fd.value();
    }

    /** {@return the socket's path: what clients {@link FdChannel#connect} to} */
    public Path socket() {
        return socket;
    }

    /**
     * Waits up to {@code timeout} for the next connection from a process of this user.
     *
     * @param timeout how long to wait
     * @return the channel to the process that connected, owned by the caller
     * @throws CoordinationException at the timeout, when closed, or when another user's process connected (that
     *                               connection is closed first)
     */
    public FdChannel accept(Duration timeout) {
        Deadline deadline = Deadline.after(timeout, "the accept timeout");
        Libc.Result r;
        // The descriptor is used under the read lock only, so close() cannot close it (and the number be reused)
        // between a check and a call; close() first shuts the socket down, which wakes a waiting poll.
        inUse.readLock().lock();
        try {
            while (true) {
                if (closed) {
                    throw new CoordinationException("the descriptor server at " + socket + " is closed");
                }
                long left = deadline.remaining().toMillis();
                Libc.Result ready = Libc.poll(fd.value(), Libc.POLLIN, (int) Math.min(left, 100));
                if (ready.value() > 0 && !closed) {
                    break;
                }
                if (ready.value() < 0) {
                    throw new CoordinationException("cannot wait for connections at " + socket + ": "
                            + Libc.strerror(ready.errno()));
                }
                if (deadline.hasPassed()) {
                    throw new CoordinationException(deadline.timedOut("a connection at " + socket));
                }
            }
            r = LibcSockets.accept4(fd.value(), LibcSockets.SOCK_CLOEXEC);
        } finally {
            inUse.readLock().unlock();
        }
        if (r.value() < 0) {
            throw new CoordinationException("cannot accept a connection at " + socket + ": " + Libc.strerror(r.errno()));
        }
        OwnedFd client = OwnedFd.fresh(r.value());
        try {
            return new FdChannel(client, checkPeer(client.value(), "process connected", socket));
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /**
     * The peer's credentials, refused unless it runs as this user; {@code role} and {@code socket} name it in the
     * refusal (the message is built only then: a first string concatenation costs milliseconds in a fresh JVM).
     */
    static PeerCredentials checkPeer(int fd, String role, Path socket) {
        PeerCredentials peer = Native.peer(fd);
        long uid = Libc.getuid();
        if (peer.uid() != uid) {
            throw new CoordinationException("refused the " + role + (socket == null ? "" : " at " + socket)
                    + ": it runs as uid " + peer.uid() + " (pid " + peer.pid() + "), not as this user (uid " + uid
                    + ")");
        }
        return peer;
    }

    /** Stops listening and removes the socket (and the directory {@link #open()} made). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        ShutdownRemovals.forget(removal);
        LibcSockets.shutdown(fd.value(), LibcSockets.SHUT_RDWR); // wakes an accept waiting in poll
        inUse.writeLock().lock();
        try {
            fd.close();
        } finally {
            inUse.writeLock().unlock();
        }
        removeFiles();
    }

    private void removeFiles() {
        try {
            Files.deleteIfExists(socket);
            if (ownsDirectory) {
                Files.deleteIfExists(directory);
            }
        } catch (IOException e) {
            throw new CoordinationException("cannot remove " + socket + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "descriptor server at " + socket;
    }
}
