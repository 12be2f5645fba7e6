package org.cudaipc4j.coord;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcProcesses;

/**
 * The order in which the members of a group exit, so that the supervisor blames the member that died first rather
 * than the first one it happened to look at: siblings that see a member die leave within milliseconds, often before
 * the JVM has reaped the member that died, and a watcher that looks at the members one after another cannot tell
 * who went first.
 *
 * <p><b>How the order is known.</b> Each member gets a pidfd ({@code pidfd_open}) as soon as it is registered, right
 * after its start, while the JVM has not reaped it (so its pid cannot have been reused), and the pidfd joins one
 * epoll instance. The kernel wakes a pidfd's waiters when its process exits, and the epoll instance queues each
 * ready descriptor at the end of its ready list as it is woken. That list is the order of the exits; it does not
 * depend on when the supervisor reads it, however late or loaded, so two exits seen in one read are still in order.
 * Each descriptor is reported once ({@code EPOLLONESHOT}).
 *
 * <p><b>Which moment counts as the exit.</b> A pidfd is ready once every thread of its process has ended, the
 * moment the process can be reaped. A process's main thread may end before the rest (a JVM's last thread tears down
 * its address space after the others), and {@code /proc} shows such a process as a zombie; {@link Pids#isAlive}
 * still counts it alive until its last thread has ended, so a sibling that reacts to its death reacts after this
 * moment, and is placed after it.
 *
 * <p><b>What is guaranteed.</b> If member A's exit (the moment above) comes before member B's exit begins, A comes
 * first. Two exits at the same moment on two CPUs are in the order the kernel queued their wake-ups, either of which
 * is a truthful answer. A member that was already gone when it was registered (a command that ends at once) is
 * placed at its registration, after the exits queued before it: its exit happened no later than that, so it is never
 * placed after a later exit, but it may be placed after an earlier one of a member registered before it.
 *
 * <p><b>Where pidfds are unavailable</b> (Linux before 5.3, a seccomp filter that refuses {@code pidfd_open} or
 * epoll), the order is that in which the JVM reported the exits ({@link Process#onExit()}): each of its reaper threads
 * waits for one process, so the order follows the exits but two exits a scheduling delay apart may be swapped.
 * {@link #kernelOrdered()} tells which holds. The same fallback serves one member whose pidfd cannot be made (no
 * descriptors left); its place among the others is then only as good as the JVM's.
 *
 * <p>Thread-safe. Owns its descriptors: {@link #close()} closes them.
 */
final class ExitOrder implements AutoCloseable {
    /** The epoll instance's descriptor, or -1 where the JVM's order is used. */
    private final int epoll;
    private final String fallbackReason;
    /** The members' pidfds, open until {@link #close()}. */
    private final List<Integer> pidfds = new ArrayList<>();
    /** Indexes of exited members, in exit order, not yet handed out by {@link #drain()}. */
    private final Queue<Integer> exited = new ConcurrentLinkedQueue<>();
    private boolean closed;

    private ExitOrder(int epoll, String fallbackReason) {
        this.epoll = epoll;
        this.fallbackReason = fallbackReason;
    }

    /** Exits in the kernel's order where pidfds and epoll work here, else in the JVM's. */
    static ExitOrder open() {
        long pid = ProcessHandle.current().pid();
        Libc.Result self = LibcProcesses.pidfdOpen(pid);
        if (self.value() < 0) {
            return jvmOrder("pidfd_open(" + pid + ") failed: " + Libc.strerror(self.errno()));
        }
        Libc.close(self.value());
        Libc.Result ep = LibcProcesses.epollCreate1(LibcProcesses.EPOLL_CLOEXEC);
        if (ep.value() < 0) {
            return jvmOrder("epoll_create1 failed: " + Libc.strerror(ep.errno()));
        }
        return new ExitOrder(ep.value(), null);
    }

    /** Exits in the order the JVM reports them; {@code reason} says why the kernel's order is not used. */
    static ExitOrder jvmOrder(String reason) {
        return new ExitOrder(-1, reason);
    }

    /** True when the order is the kernel's (pidfds), false when it is the JVM's (see the class comment). */
    boolean kernelOrdered() {
        return epoll >= 0;
    }

    /** Why the order is the JVM's, or null when it is the kernel's. */
    String fallbackReason() {
        return fallbackReason;
    }

    /**
     * Watches member {@code index}: {@code process} when it was started here (null when adopted), and its handle.
     * Call it right after the start: a member that is gone by then is placed here (see the class comment).
     */
    synchronized void register(int index, Process process, ProcessHandle handle) {
        if (epoll < 0 || closed) {
            reportedByTheJvm(index, process, handle);
            return;
        }
        Libc.Result fd = LibcProcesses.pidfdOpen(handle.pid());
        if (fd.value() < 0) {
            if (fd.errno() == Libc.ESRCH) {
                goneAtRegistration(index); // reaped already: no such process any more
            } else {
                reportedByTheJvm(index, process, handle);
            }
            return;
        }
        int pidfd = fd.value();
        // Until the JVM has seen the member exit, nothing has reaped it and its pid names it; after that the pid
        // may name another process, and the pidfd is of no use.
        if (process != null ? !process.isAlive() : !handle.isAlive()) {
            Libc.close(pidfd);
            goneAtRegistration(index);
            return;
        }
        // An exit between the open and this call is queued by the call itself (the descriptor is ready already).
        Libc.Result added = LibcProcesses.epollAdd(epoll, pidfd, LibcProcesses.EPOLLIN | LibcProcesses.EPOLLONESHOT,
                index);
        if (added.value() < 0) {
            Libc.close(pidfd);
            reportedByTheJvm(index, process, handle);
            return;
        }
        pidfds.add(pidfd);
    }

    /**
     * The members that exited since the last call (by index), first exit first. Does not wait.
     *
     * @throws CoordinationException when the epoll instance cannot be read
     */
    synchronized List<Integer> drain() {
        takeKernelQueue();
        List<Integer> out = new ArrayList<>();
        for (Integer i; (i = exited.poll()) != null; ) {
            out.add(i);
        }
        return out;
    }

    /** Closes the pidfds and the epoll instance; exits not drained by then are forgotten. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int fd : pidfds) {
            Libc.close(fd);
        }
        pidfds.clear();
        if (epoll >= 0) {
            Libc.close(epoll);
        }
    }

    /** The descriptors this order owns while open (its pidfds, then its epoll instance), for leak checks. */
    synchronized List<Integer> descriptors() {
        List<Integer> fds = new ArrayList<>();
        if (!closed) {
            fds.addAll(pidfds);
            if (epoll >= 0) {
                fds.add(epoll);
            }
        }
        return fds;
    }

    private void goneAtRegistration(int index) {
        takeKernelQueue(); // the exits queued so far came first
        exited.add(index);
    }

    private void reportedByTheJvm(int index, Process process, ProcessHandle handle) {
        (process != null ? process.onExit() : handle.onExit()).thenRun(() -> exited.add(index));
    }

    /** Moves what the epoll instance has queued, in its order, to {@link #exited}. */
    private void takeKernelQueue() {
        if (epoll < 0 || closed || pidfds.isEmpty()) {
            return;
        }
        long[] data = new long[pidfds.size()];
        while (true) {
            Libc.Result r = LibcProcesses.epollWait(epoll, data, 0);
            if (r.value() < 0) {
                throw new CoordinationException("epoll_wait on the members' pidfds failed: "
                        + Libc.strerror(r.errno()));
            }
            for (int i = 0; i < r.value(); i++) {
                exited.add((int) data[i]);
            }
            if (r.value() < data.length) {
                return;
            }
        }
    }
}
