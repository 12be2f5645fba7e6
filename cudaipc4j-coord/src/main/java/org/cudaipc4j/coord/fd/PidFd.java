package org.cudaipc4j.coord.fd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcFiles;
import org.cudaipc4j.base.LibcProcesses;
import org.cudaipc4j.coord.CoordinationException;

/**
 * Taking a descriptor straight out of another process by its number ({@code pidfd_open} and {@code pidfd_getfd},
 * Linux 5.6+): no socket needed, but the taker needs ptrace access to the owner (same user, and under Yama
 * {@code ptrace_scope} 1 the owner must have named the taker with {@link #allowTakingBy}), and both must be in one
 * PID namespace. Where that does not hold, {@link FdChannel} (SCM_RIGHTS) works; the errors say so.
 */
public final class PidFd {
    private static final Path PTRACE_SCOPE = Path.of("/proc/sys/kernel/yama/ptrace_scope");

    private PidFd() {}

    /**
     * {@return a copy of descriptor {@code fd} of process {@code pid}, owned by the caller}
     *
     * @param pid the process that holds the descriptor
     * @param fd the descriptor's number in that process
     * @throws CoordinationException with the reason when the kernel refuses (EPERM: ptrace rules; ESRCH: no such
     *                               process in this PID namespace; EBADF: no such descriptor; ENOSYS: kernel too old)
     */
    public static OwnedFd take(long pid, int fd) {
        Libc.Result pidfd = LibcProcesses.pidfdOpen(pid);
        if (pidfd.value() < 0) {
            throw failure("pidfd_open(" + pid + ")", pidfd.errno(), pid, fd);
        }
        try (OwnedFd handle = OwnedFd.fresh(pidfd.value())) {
            Libc.Result copy = LibcProcesses.pidfdGetfd(handle.value(), fd);
            if (copy.value() < 0) {
                throw failure("pidfd_getfd(pid " + pid + ", fd " + fd + ")", copy.errno(), pid, fd);
            }
            return OwnedFd.fresh(copy.value());
        }
    }

    /**
     * Lets process {@code pid} (and its descendants) take this process's descriptors under Yama {@code ptrace_scope}
     * 1 ({@code prctl(PR_SET_PTRACER, pid)}). Has no effect on other scopes; a later call replaces the allowed pid.
     *
     * @param pid the process allowed to take them
     */
    public static void allowTakingBy(long pid) {
        Libc.Result r = LibcProcesses.setPtracer(pid);
        if (r.value() < 0 && r.errno() != LibcProcesses.EINVAL_NO_YAMA) {
            throw new CoordinationException("prctl(PR_SET_PTRACER, " + pid + ") failed: " + Libc.strerror(r.errno()));
        }
    }

    /** {@return the Yama ptrace scope (0 to 3), or -1 where Yama is not there} */
    public static int ptraceScope() {
        try {
            return Integer.parseInt(Files.readString(PTRACE_SCOPE).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    private static CoordinationException failure(String call, int errno, long pid, int fd) {
        String why = switch (errno) {
            case Libc.EPERM -> "not permitted: taking a descriptor needs ptrace access to pid " + pid
                    + " (same user; Yama ptrace_scope is " + ptraceScope() + "; under scope 1 the owner must call"
                    + " PidFd.allowTakingBy(this pid), under 2 only root may, under 3 nobody; containers often forbid"
                    + " it with seccomp): pass the descriptor over a Unix socket instead (FdChannel, SCM_RIGHTS)";
            case Libc.ESRCH -> "no process " + pid + " in this PID namespace (it exited, or runs in another"
                    + " namespace, where its pid means nothing here): pass the descriptor over a Unix socket instead"
                    + " (FdChannel, SCM_RIGHTS), which works across PID namespaces";
            case Libc.EBADF -> "process " + pid + " has no open descriptor " + fd;
            case Libc.ENOSYS -> "this kernel has no pidfd_getfd (Linux 5.6 or newer needed): use FdChannel";
            default -> Libc.strerror(errno);
        };
        return new CoordinationException(call + " failed: " + why);
    }
}
