"""Taking another process's file descriptor by number (``pidfd_open``, ``pidfd_getfd``; Linux 5.6+), as torch's
reader of expandable segments does and as cudaipc4j's importers may instead of the socket. Each refusal gets one line
that says why and what the user can change."""
from __future__ import annotations

import ctypes
import errno
import os

from .errors import Error

SYS_PIDFD_OPEN = 434  # the same on x86-64 and aarch64 (the unified syscall table)
SYS_PIDFD_GETFD = 438

_libc = None

#: How a reader does without ptrace rights, the same words in Java's refusal (ProducerFds)
SOCKET_WAY = ("or receive the fds over the descriptor socket instead, which needs no ptrace rights (a torch producer"
              " sends them with cudaipc4j.sharing.send_share)")


class FdAccessError(Error, OSError):
    """Another process's fd could not be taken; the message says why and what to change (errno is kept)."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def explain(err: int, pid: int, fd: int | None, call: str) -> str:
    """The one-line message for ``call`` (pidfd_open or pidfd_getfd) failing with ``err``."""
    target = f"fd {fd} of pid {pid}" if fd is not None else f"pid {pid}"
    if err == errno.ESRCH:
        return f"{call}: cannot take {target}: the process has exited (or runs in another PID namespace, where" \
               f" this pid is not it)"
    if err == errno.EPERM:
        return f"{call}: cannot take {target}: not permitted: it needs ptrace rights over the exporter (the same" \
               f" user, and kernel.yama.ptrace_scope 0, or the exporter calling prctl(PR_SET_PTRACER), or" \
               f" CAP_SYS_PTRACE; in Docker --cap-add=SYS_PTRACE); {SOCKET_WAY}"
    if err == errno.EBADF:
        return f"{call}: cannot take {target}: the process has no such open fd (the export was closed, or the" \
               f" number is not the exporter's)"
    if err == errno.ENOSYS:
        return f"{call}: cannot take {target}: this kernel lacks the call (Linux 5.6 or newer is needed); use the" \
               f" descriptor socket"
    if err == errno.EMFILE or err == errno.ENFILE:
        return f"{call}: cannot take {target}: too many open files in this process (ulimit -n)"
    if err == errno.EINVAL:
        return f"{call}: cannot take {target}: invalid argument (a pid or fd that is not one)"
    return f"{call}: cannot take {target}: {os.strerror(err)}"


def _syscall(number: int, *args: int) -> int:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    r = _libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    if r < 0:
        return -ctypes.get_errno()
    return r


def pidfd_open(pid: int) -> int:
    """A pidfd of ``pid`` (close-on-exec), or FdAccessError."""
    try:
        if hasattr(os, "pidfd_open"):
            return os.pidfd_open(pid)
    except OSError as e:
        raise FdAccessError(e.errno, explain(e.errno, pid, None, "pidfd_open")) from None
    r = _syscall(SYS_PIDFD_OPEN, pid, 0)
    if r < 0:
        raise FdAccessError(-r, explain(-r, pid, None, "pidfd_open"))
    return r


def pidfd_getfd(pidfd: int, fd: int, pid: int) -> int:
    """A copy, in this process, of ``fd`` of the process of ``pidfd`` (close-on-exec, as the kernel sets it)."""
    getfd = getattr(os, "pidfd_getfd", None)
    if getfd is not None:
        try:
            return getfd(pidfd, fd)
        except OSError as e:
            raise FdAccessError(e.errno, explain(e.errno, pid, fd, "pidfd_getfd")) from None
    r = _syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
    if r < 0:
        raise FdAccessError(-r, explain(-r, pid, fd, "pidfd_getfd"))
    return r


def take_fds(pid: int, numbers: list[int] | tuple[int, ...]) -> list[int]:
    """Copies of ``numbers`` of process ``pid``; all or none (on failure those taken are closed)."""
    pidfd = pidfd_open(pid)
    taken: list[int] = []
    try:
        for n in numbers:
            taken.append(pidfd_getfd(pidfd, n, pid))
        return taken
    except BaseException:
        for fd in taken:
            os.close(fd)
        raise
    finally:
        os.close(pidfd)


def pid_namespace(pid: int | str = "self") -> int:
    """The inode of ``/proc/<pid>/ns/pid`` (0 when it cannot be read)."""
    try:
        return os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return 0
