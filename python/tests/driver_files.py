"""The CUDA driver's files in /dev/shm, ``cuda.shm.<n>.<pid in hex>.<m>``: a process's interprocess state, made
when torch shares a CUDA tensor. A torch process leaves its file behind even when it exits normally: the driver
removes it when the process's context is torn down, which torch never does (a C program that exits without
cudaDeviceReset leaves it too, see docs/harness/rotation.cu). So the tests remove the files of a child once it has
ended, and a GPU test after which one of an ended process is left fails (support.py).

Run as ``driver_files.py PID`` it waits for process PID to end and then removes its files: how the test process,
which shares tensors itself, has its own removed once it is gone (a live process's driver still uses them)."""
import os
import select
import subprocess
import sys
import time
from pathlib import Path

DIRECTORY = Path("/dev/shm")


def producer(name: str) -> int:
    """The pid a driver file's name carries, or -1."""
    parts = name.split(".")
    if len(parts) != 5 or parts[0] != "cuda" or parts[1] != "shm":
        return -1
    try:
        return int(parts[3], 16)
    except ValueError:
        return -1


def names() -> set[str]:
    """The driver's files now in /dev/shm."""
    try:
        return {f.name for f in DIRECTORY.glob("cuda.shm.*")}
    except OSError:
        return set()


def of(pid: int) -> list[str]:
    """The names of process ``pid``'s driver files."""
    return sorted(n for n in names() if producer(n) == pid)


def running(pid: int) -> bool:
    """Whether process ``pid`` exists (one that has exited but is not yet waited for counts)."""
    return pid > 0 and Path(f"/proc/{pid}").exists()


def _remove(pid: int) -> list[str]:
    removed = []
    for n in of(pid):
        try:
            (DIRECTORY / n).unlink()
            removed.append(n)
        except OSError:
            pass  # another user's, or gone meanwhile
    return removed


def remove_of_ended(pid: int) -> list[str]:
    """Removes the driver files of process ``pid`` if it has ended and been waited for; returns the names removed."""
    return [] if running(pid) else _remove(pid)


def left_since(before: set[str]) -> list[str]:
    """Driver files not among ``before`` whose process has ended."""
    return sorted(n for n in names() - before if producer(n) > 0 and not running(producer(n)))


def remove_after_exit(pid: int, announce: bool = False) -> subprocess.Popen:
    """Starts a process of its own that removes process ``pid``'s driver files once ``pid`` has ended. With
    ``announce``, it writes the line ``waiting`` to its stdout (a pipe) once it watches ``pid``."""
    return subprocess.Popen([sys.executable, __file__, str(pid)] + (["--announce"] if announce else []),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if announce else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True, text=announce)


def _wait_for_end(pid: int, announce: bool) -> None:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return  # ended already
    except (AttributeError, OSError):
        _announce(announce)
        while running(pid):  # no pidfd here: poll (a zombie stays until its parent waits)
            time.sleep(0.05)
        return
    try:
        _announce(announce)
        select.select([fd], [], [])  # readable once the process has exited
    finally:
        os.close(fd)


def _announce(announce: bool) -> None:
    if announce:
        print("waiting", flush=True)


if __name__ == "__main__":
    target = int(sys.argv[1])
    _wait_for_end(target, sys.argv[2:] == ["--announce"])
    _remove(target)
