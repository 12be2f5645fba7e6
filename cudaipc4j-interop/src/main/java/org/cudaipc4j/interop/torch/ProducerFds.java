package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcProcesses;
import org.cudaipc4j.coord.fd.PidFd;

/**
 * Takes the file descriptors of an expandable segment's chunks out of torch's producer, as torch's own
 * {@code ExpandableSegment::fromShared} does: {@code pidfd_open(pid)}, then {@code pidfd_getfd} for each chunk's
 * fd number. Each refusal becomes one {@link TorchInteropException} line that says why and what can be changed.
 *
 * <p>A producer's pidfd is kept while blocks of it are mapped ({@link Producer}): the next share of that producer
 * needs neither a new {@code pidfd_open} nor its start time read again, and the pidfd tells when the pid stops
 * naming that process (it polls readable once the process has exited). Not thread-safe: the reader calls it under
 * its lock.
 */
final class ProducerFds {
    /** The system calls, replaceable so that each errno's message is tested without a producer. */
    interface Syscalls {
        /** {@code pidfd_open(pid, 0)}. */
        Libc.Result pidfdOpen(long pid);

        /** {@code pidfd_getfd(pidfd, fd, 0)}. */
        Libc.Result pidfdGetfd(int pidfd, int fd);

        /** {@code close(fd)}. */
        void close(int fd);

        /** Whether the process of {@code pidfd} has exited ({@code poll} for {@code POLLIN}, not waiting). */
        default boolean exited(int pidfd) {
            return false;
        }
    }

    /** The kernel's calls. */
    static final Syscalls KERNEL = new Syscalls() {
        @Override
        public Libc.Result pidfdOpen(long pid) {
            return LibcProcesses.pidfdOpen(pid);
        }

        @Override
        public Libc.Result pidfdGetfd(int pidfd, int fd) {
            return LibcProcesses.pidfdGetfd(pidfd, fd);
        }

        @Override
        public void close(int fd) {
            Libc.close(fd);
        }

        @Override
        public boolean exited(int pidfd) {
            Libc.Result r = Libc.poll(pidfd, Libc.POLLIN, 0);
            return r.value() != 0; // readable once the process has exited; an error counts as gone too
        }
    };

    /**
     * A producer process as this reader knows it: its pidfd (or why {@code pidfd_open} was refused) and its start
     * time, read once ({@link TorchStorageKey#processStartTime}); {@code blocks} counts its mapped blocks, and the
     * pidfd is closed when none is left.
     */
    static final class Producer {
        final int pid;
        final int pidfd;
        final int refusedErrno;
        final long start;
        int blocks;
        boolean closed;

        private Producer(int pid, int pidfd, int refusedErrno, long start) {
            this.pid = pid;
            this.pidfd = pidfd;
            this.refusedErrno = refusedErrno;
            this.start = start;
        }
    }

    /**
     * How a reader does without ptrace rights: the producer's fds over the descriptor socket. The same words end
     * Python's refusal ({@code cudaipc4j.pidfd.SOCKET_WAY}).
     */
    static final String SOCKET_WAY = "or receive the fds over the descriptor socket instead, which needs no ptrace"
            + " rights (a torch producer sends them with cudaipc4j.sharing.send_share)";

    private final Syscalls calls;
    private final Map<Integer, Producer> producers = new HashMap<>();

    ProducerFds(Syscalls calls) {
        this.calls = calls;
    }

    /**
     * The process that runs as {@code pid} now: the one known here while it lives, else a new one with its pidfd
     * opened and its start time read. When {@code pidfd_open} is refused, the producer carries the errno (and the
     * start time read without it), for {@link #take(Producer, int[])} to report. Give it back with
     * {@link #release(Producer)} unless a block of it was mapped ({@link #mapped}).
     */
    Producer producer(int pid) {
        Producer p = producers.get(pid);
        if (p != null && !calls.exited(p.pidfd)) {
            return p;
        }
        if (p != null) {
            producers.remove(pid); // exited: its pid may name another process now; its mapped blocks keep the pidfd
            release(p);
        }
        Libc.Result pidfd = calls.pidfdOpen(pid);
        if (pidfd.value() < 0) {
            return new Producer(pid, -1, pidfd.errno(), TorchStorageKey.processStartTime(pid));
        }
        p = new Producer(pid, pidfd.value(), 0, TorchStorageKey.processStartTime(pid));
        producers.put(pid, p);
        return p;
    }

    /** A block of {@code p} is mapped now: its pidfd stays open until {@link #unmapped}. */
    void mapped(Producer p) {
        p.blocks++;
    }

    /** A block of {@code p} is unmapped: the pidfd is closed with the last. */
    void unmapped(Producer p) {
        p.blocks--;
        release(p);
    }

    /** Closes {@code p}'s pidfd when no block of it is mapped (after an open that mapped nothing new). */
    void release(Producer p) {
        if (p.blocks != 0 || p.pidfd < 0 || p.closed) {
            return;
        }
        producers.remove(p.pid, p);
        calls.close(p.pidfd);
        p.closed = true;
    }

    /** Producers whose pidfd is open here. */
    int openPidfds() {
        return producers.size();
    }

    /**
     * Copies of descriptors {@code fds} of producer {@code p}, in order, taken through its pidfd and owned by the
     * caller (close each with {@link #close}). Nothing stays open when it fails.
     *
     * @throws TorchInteropException naming the reason: EPERM (ptrace rules), ESRCH (no such process here), EBADF
     *                               (no such descriptor), ENOSYS (kernel older than 5.6), or another errno; a
     *                               refused {@code pidfd_open} is reported here
     */
    int[] take(Producer p, int[] fds) {
        if (p.pidfd < 0) {
            throw refusal("pidfd_open", p.refusedErrno, p.pid, -1, fds.length);
        }
        int[] taken = new int[fds.length];
        int n = 0;
        try {
            for (; n < fds.length; n++) {
                Libc.Result copy = calls.pidfdGetfd(p.pidfd, fds[n]);
                if (copy.value() < 0) {
                    throw refusal("pidfd_getfd", copy.errno(), p.pid, n, fds.length, fds[n]);
                }
                taken[n] = copy.value();
            }
            return taken;
        } catch (RuntimeException e) {
            close(taken, n);
            throw e;
        }
    }

    /** Closes the first {@code count} of {@code fds}. */
    void close(int[] fds, int count) {
        for (int i = 0; i < count; i++) {
            calls.close(fds[i]);
        }
    }

    private static TorchInteropException refusal(String call, int errno, int pid, int chunk, int chunks) {
        return refusal(call, errno, pid, chunk, chunks, -1);
    }

    /**
     * The one line for a refused {@code call}: what was being taken, why the kernel refused, what the user can change.
     * {@code chunk} is -1 for {@code pidfd_open}.
     */
    static TorchInteropException refusal(String call, int errno, int pid, int chunk, int chunks, int fd) {
        String what = "cannot open torch's expandable segment shared by pid " + pid + ": " + call
                + (chunk >= 0 ? " of its fd " + fd + " (chunk " + chunk + " of " + chunks + ")" : "(" + pid + ")")
                + " failed: ";
        String avoid = "; or share from a producer with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False";
        String why = switch (errno) {
            case Libc.EPERM -> "not permitted: taking the producer's file descriptors needs ptrace access to it"
                    + producerUser(pid) + ", and Yama ptrace_scope is " + PidFd.ptraceScope() + " here: run the"
                    + " reader as the producer's user and, under ptrace_scope 1, have the producer allow it"
                    + " (prctl(PR_SET_PTRACER, reader pid or PR_SET_PTRACER_ANY)) or set kernel.yama.ptrace_scope=0,"
                    + " or give the reader CAP_SYS_PTRACE (containers: --cap-add=SYS_PTRACE and a seccomp profile"
                    + " that allows pidfd_getfd); " + SOCKET_WAY + avoid;
            case Libc.ESRCH -> "no process " + pid + " here: the producer has exited, or it runs in another PID"
                    + " namespace (a container, unshare), where its pid means nothing here; a reader of expandable"
                    + " segments must share the producer's PID namespace (e.g. docker --pid=host or"
                    + " --pid=container:<producer>)" + avoid;
            case Libc.EBADF -> "process " + pid + " has no open file descriptor " + fd + ": the producer no longer"
                    + " holds that chunk (it freed the block, or the share is stale): share the tensor again and"
                    + " open it while the producer keeps it";
            case Libc.ENOSYS -> "this kernel has no " + call + " (Linux 5.6 or newer is needed to take torch's"
                    + " expandable-segment file descriptors, or a seccomp filter hides it): run on a newer kernel"
                    + avoid;
            default -> Libc.strerror(errno) + " (errno " + errno + ")" + avoid;
        };
        return new TorchInteropException(what + why);
    }

    /** ", which runs as uid N while this reader runs as uid M" when they differ and the owner is known, else "". */
    private static String producerUser(int pid) {
        try {
            int owner = (Integer) Files.getAttribute(Path.of("/proc", Integer.toString(pid)), "unix:uid");
            long self = Libc.getuid();
            return owner == self ? "" : " (it runs as uid " + owner + ", this reader as uid " + self + ")";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
