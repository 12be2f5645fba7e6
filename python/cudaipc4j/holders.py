"""Signing into a Java exporter's holder table (org.cudaipc4j.coord.ExportHolders), so the exporter sees that this
process maps its export and frees it only after the release. Layout and protocol: docs/interop-format.md, "The
holder table".

The table is a file in /dev/shm mapped shared by every process. Entries are claimed and released by compare-and-set
of a 64-bit state word, the same ``lock cmpxchg`` the JVM's VarHandle uses; Python has no atomics on a mapping, so
the compare-and-set is libatomic's ``__atomic_compare_exchange_8``.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import struct
import threading
from typing import Callable

from .errors import Error

MAGIC = 0x3253444C4F485043  # "CPHOLDS2"
HEADER = 64
ENTRY = 32
FREE, CLAIMED, HELD = 0, 1, 2
STATE = 3
MAX_ENTRIES = 1 << 16
DIRECTORY = "/dev/shm"


class HoldersError(Error, RuntimeError):
    """The table cannot be used: missing, not a table, full, or no atomics here."""


_cas_function = None


def _cas():
    global _cas_function
    if _cas_function is None:
        name = ctypes.util.find_library("atomic") or "libatomic.so.1"
        try:
            lib = ctypes.CDLL(name)
            f = lib.__atomic_compare_exchange_8
        except (OSError, AttributeError) as e:
            raise HoldersError(f"cannot sign into a holder table: libatomic ({name}) is not available ({e});"
                               f" install it (Debian/Ubuntu: libatomic1)") from None
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_int]
        f.restype = ctypes.c_bool
        _cas_function = f
    return _cas_function


_SEQ_CST = 5


def map_existing(path: str, size_of: Callable[[os.stat_result], int]) -> mmap.mmap:
    """Maps the file ``path`` that another process made, shared, for reading and writing, following no link:
    ``size_of`` sees the open file's status and returns how many bytes to map, or raises to refuse it. The descriptor
    is closed either way; an ``OSError`` of the open is the caller's to report, naming what the file should be."""
    fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        return mmap.mmap(fd, size_of(os.fstat(fd)), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(fd)


def start_millis(pid: int) -> int:
    """When ``pid`` started, in epoch milliseconds, computed as the JDK's ProcessHandle.Info.startInstant does
    (btime from /proc/stat, starttime in clock ticks from /proc/<pid>/stat); -1 when it cannot be told."""
    try:
        with open("/proc/stat", "rb") as f:
            btime = next(int(line.split()[1]) for line in f if line.startswith(b"btime "))
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except (OSError, StopIteration, ValueError):
        return -1
    fields = stat[stat.rindex(b")") + 2:].split()
    ticks = int(fields[19])  # field 22 of stat, counted after "pid (comm)"
    return btime * 1000 + ticks * 1000 // os.sysconf("SC_CLK_TCK")


class HolderTable:
    """A holder table another process created, mapped; :meth:`hold` signs in under an export's key."""

    def __init__(self, name: str, directory: str = DIRECTORY) -> None:
        if "/" in name or not name.startswith("cudaipc4j-"):
            raise HoldersError(f"{name!r} is not a holder table's name (cudaipc4j-...)")
        self.name = name
        path = os.path.join(directory, name)

        def size_of(st: os.stat_result) -> int:
            if st.st_size < HEADER:
                raise HoldersError(f"{path} is not an export holder table ({st.st_size} bytes)")
            return st.st_size

        try:
            self._map = map_existing(path, size_of)
        except OSError as e:
            raise HoldersError(f"cannot open the holder table {path}: {e.strerror}") from None
        size = len(self._map)
        magic, capacity = struct.unpack_from("<Qi", self._map, 0)
        if magic != MAGIC:
            self._map.close()
            raise HoldersError(f"{path} is not an export holder table (magic 0x{magic:x})")
        if not 1 <= capacity <= MAX_ENTRIES or size < HEADER + capacity * ENTRY:
            self._map.close()
            raise HoldersError(f"export holder table {path} is damaged (capacity {capacity} in {size} bytes)")
        self.capacity = capacity
        self._anchor = ctypes.c_char.from_buffer(self._map)  # pins the mapping's address for the CAS calls
        self._base = ctypes.addressof(self._anchor)
        self._lock = threading.Lock()
        self._open: set[Hold] = set()
        self._closed = False
        self._next = 0  # where the search for a free entry starts
        self._start: tuple[int, int] = (-1, -1)  # (pid, its start time), read once per process

    def _word(self, i: int) -> int:
        return struct.unpack_from("<Q", self._map, HEADER + i * ENTRY)[0]

    def _compare_and_set(self, i: int, expected: int, new: int) -> bool:
        old = ctypes.c_uint64(expected)
        return bool(_cas()(self._base + HEADER + i * ENTRY, ctypes.addressof(old), new, _SEQ_CST, _SEQ_CST))

    def hold(self, key: int) -> Hold:
        """This process holds export ``key`` until the hold is released (or this process ends).

        The search for a free entry starts after the entry this table took last, so that a reader holding
        thousands of exports (a state dict's tensors) takes each in a step or two, not in a scan of all it holds.
        """
        with self._lock:
            if self._closed:
                raise HoldersError(f"holder table {self.name} is closed")
            pid = os.getpid()
            if self._start[0] != pid:
                self._start = (pid, start_millis(pid))
            start = self._start[1]
            for _ in range(2):
                for n in range(self.capacity):
                    i = (self._next + n) % self.capacity
                    word = self._word(i)
                    if word & STATE != FREE:
                        continue
                    generation = (word & 0xFFFFFFFF) & ~STATE
                    claimed = pid << 32 | ((generation + STATE + 1) & 0xFFFFFFFF) | CLAIMED
                    if self._compare_and_set(i, word, claimed):
                        struct.pack_into("<qqq", self._map, HEADER + i * ENTRY + 8, pid, start, key)
                        held = (claimed & ~STATE) | HELD
                        if self._compare_and_set(i, claimed, held):
                            self._next = (i + 1) % self.capacity
                            h = Hold(self, i, key, held)
                            self._open.add(h)
                            return h
                self._reclaim_dead()
            raise HoldersError(f"export holder table {self.name} is full: {self.capacity} holds by live processes")

    def _reclaim_dead(self) -> None:
        for i in range(self.capacity):
            word = self._word(i)
            state = word & STATE
            if state == CLAIMED and not _alive(word >> 32):
                self._free(i, word)
            elif state == HELD:
                pid, start = struct.unpack_from("<qq", self._map, HEADER + i * ENTRY + 8)
                if self._word(i) == word and not (_alive(pid) and start_millis(pid) == start):
                    self._free(i, word)

    def _free(self, i: int, word: int) -> bool:
        return self._compare_and_set(i, word, (word & 0xFFFFFFFF) & ~STATE)

    def holders(self, key: int) -> list[int]:
        """The pids that hold ``key`` now (one per hold), for tests and diagnostics."""
        out = []
        for i in range(self.capacity):
            word = self._word(i)
            if word & STATE != HELD:
                continue
            pid, start, k = struct.unpack_from("<qqq", self._map, HEADER + i * ENTRY + 8)
            if self._word(i) == word and k == key and _alive(pid) and start_millis(pid) == start:
                out.append(pid)
        return out

    def close(self) -> None:
        """Releases this process's holds and unmaps the table. Idempotent."""
        with self._lock:
            if self._closed:
                return
            for h in list(self._open):
                h._release_locked()
            self._closed = True
            self._anchor = None  # the buffer export must be gone before the mapping can close
            self._map.close()


class Hold:
    """One hold of one export; :meth:`release` (once or more) signs out."""

    def __init__(self, table: HolderTable, entry: int, key: int, word: int) -> None:
        self.table = table
        self.entry = entry
        self.key = key
        self._word = word
        self._released = False

    def release(self) -> None:
        with self.table._lock:
            self._release_locked()

    def _release_locked(self) -> None:
        if not self._released and not self.table._closed:
            # only the entry this hold took: one freed and taken again by a reclaimer meanwhile is not ours
            self.table._free(self.entry, self._word)
            self.table._open.discard(self)
        self._released = True


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            s = f.read()
    except FileNotFoundError:
        return False
    except OSError:
        return os.path.exists(f"/proc/{pid}")
    state = s[s.rindex(b")") + 2:s.rindex(b")") + 3]
    return state not in (b"Z", b"X", b"x")
