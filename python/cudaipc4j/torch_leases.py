"""The leases of the torch shares this process opens (``cudaipc4j.open`` of a ``torch`` descriptor), kept so that a
watcher process gives every slot still held back when this process dies (SIGKILL, an OOM kill, an exit that never
freed its tensors), which torch's own reader never does: its producer then keeps those blocks for good.

The book is laid out as the Java reader's (org.cudaipc4j.interop.torch.LeaseBook; docs/interop-guide.md, "The lease
watcher"): a chain of pages in ``/dev/shm``, ``cudaipc4j-<pid>-<16 hex>-torchleases`` (mode 0600), the first of
1024 entries and each further one twice the last, added as needed, so no count of shares open at once is fixed.
Each entry (128 bytes) names a counter file and a slot. torch's reader gives a slot back itself when its storage
dies; the entry is then free to take again. Whether it died is asked (torch's ``StorageWeakRef``) only when the book
is full, before it grows, so an open costs no scan.

The watcher (``python -m cudaipc4j.torch_leases <book> <counter directory> <reader pid>``, started with the first
torch open or by :func:`start`) holds the reader's pidfd and waits, without polling, for it to become readable; then
it gives back every slot still held, mapping each counter file once for all of its slots and never touching its
process count (a slot at 0, given back by torch already, stays 0), removes the book's pages and exits.
"""
from __future__ import annotations

import mmap
import os
import secrets
import select
import signal
import struct
import subprocess
import sys
import threading
from typing import Any

from . import torch_counters
from .errors import Error
from .holders import DIRECTORY as SHM_DIRECTORY
from .holders import map_existing
from .pidfd import FdAccessError, pidfd_open

MAGIC = 0x3242_4C54_4350_4943  # "CIPCTLB2" read as a little-endian int64
VERSION = 2
HEADER = 128
ENTRY = 128
NAME_MAX = ENTRY - 16
FIRST_PAGE = 1024
FREE, HELD, RELEASED = 0, 1, 2
_NEXT_LENGTH, _NEXT_NAME = 28, 64
_PAGE = struct.Struct("<QiiqiI")  # magic, version, entries, reader pid, closed, next name's length
_WATCHER_START_SECONDS = 60


class LeaseError(Error, RuntimeError):
    """The lease book or its watcher cannot be used; the message says why."""


class LeaseBook:
    """The pages of a reader's book: made and grown by the reader (:meth:`create`), or read by its watcher
    (:meth:`open`, which finds the later pages by the names each page's header gives)."""

    def __init__(self, pages: list[tuple[str, mmap.mmap]], directory: str, creator: bool) -> None:
        self.directory = directory
        self._pages = pages
        self._creator = creator
        self.first = _PAGE.unpack_from(pages[0][1], 0)[2]
        self.capacity = sum(_PAGE.unpack_from(m, 0)[2] for _, m in pages)

    @classmethod
    def create(cls, first: int = FIRST_PAGE, directory: str = SHM_DIRECTORY) -> LeaseBook:
        if first < 1:
            raise ValueError(f"a lease book's first page needs at least 1 entry, got {first}")
        return cls([_new_page(first, directory)], directory, True)

    @classmethod
    def open(cls, name: str, directory: str = SHM_DIRECTORY) -> LeaseBook:
        return cls([_open_page(name, directory)], directory, False)

    @property
    def name(self) -> str:
        return self._pages[0][0]

    def paths(self) -> list[str]:
        return [os.path.join(self.directory, n) for n, _ in self._pages]

    def grow(self) -> None:
        """Adds a page of twice the last one's entries, linked from the last one once made."""
        entries = _PAGE.unpack_from(self._pages[-1][1], 0)[2] * 2
        if not self._creator or self.capacity + entries > 2**31 - 1:
            raise LeaseError("a torch lease book grows only in its reader, up to 2^31 entries")
        name, m = _new_page(entries, self.directory)
        last = self._pages[-1][1]
        data = name.encode("ascii")
        last[_NEXT_NAME:_NEXT_NAME + len(data)] = data
        struct.pack_into("<i", last, _NEXT_LENGTH, len(data))  # last: the watcher reads the name once it is there
        self._pages.append((name, m))
        self.capacity += entries

    def _locate(self, i: int) -> tuple[mmap.mmap, int]:
        if not 0 <= i < self.capacity:
            raise IndexError(f"lease entry {i} of {self.capacity}")
        k = (i // self.first + 1).bit_length() - 1  # page k starts at first * (2^k - 1)
        return self._pages[k][1], HEADER + ENTRY * (i - self.first * ((1 << k) - 1))

    def hold(self, i: int, counter_name: str, slot: int) -> None:
        """Entry ``i`` holds ``slot`` of ``counter_name``; its state is written last."""
        data = counter_name.encode("utf-8")
        if len(data) > NAME_MAX:
            raise ValueError(f"torch counter name longer than {NAME_MAX} bytes: {counter_name}")
        m, at = self._locate(i)
        m[at + 16:at + 16 + len(data)] = data
        struct.pack_into("<iq", m, at + 4, len(data), slot)
        struct.pack_into("<i", m, at, HELD)

    def set_state(self, i: int, state: int) -> None:
        m, at = self._locate(i)
        struct.pack_into("<i", m, at, state)

    def state(self, i: int) -> int:
        m, at = self._locate(i)
        return struct.unpack_from("<i", m, at)[0]

    def held(self) -> list[tuple[int, str, int]]:
        """(index, counter name, slot) of every held entry of every page, later pages opened as they are found."""
        while self.capacity < 2**31 - 1:
            last = self._pages[-1][1]
            length = struct.unpack_from("<i", last, _NEXT_LENGTH)[0]
            if not 0 < length <= HEADER - _NEXT_NAME:
                break
            name = bytes(last[_NEXT_NAME:_NEXT_NAME + length]).decode("ascii")
            self._pages.append(_open_page(name, self.directory))
            self.capacity += _PAGE.unpack_from(self._pages[-1][1], 0)[2]
        out = []
        first = 0
        names: dict[bytes, str] = {}  # a few counter files hold all the slots
        for _, m in self._pages:
            states = memoryview(m)[HEADER:].cast("i")
            try:
                for n in range(0, len(states), ENTRY // 4):
                    if states[n] == HELD:
                        at = HEADER + 4 * n
                        length, slot = struct.unpack_from("<iq", m, at + 4)
                        if 0 < length <= NAME_MAX:
                            raw = m[at + 16:at + 16 + length]
                            name = names.get(raw) or names.setdefault(raw, raw.decode("utf-8", "replace"))
                            out.append((first + n * 4 // ENTRY, name, slot))
            finally:
                states.release()
            first += (len(m) - HEADER) // ENTRY
        return out

    def mark_closed(self) -> None:
        struct.pack_into("<i", self._pages[0][1], 24, 1)

    def closed(self) -> bool:
        return struct.unpack_from("<i", self._pages[0][1], 24)[0] == 1

    def close(self) -> None:
        """Unmaps every page; the reader's close also removes their files. Idempotent."""
        pages, self._pages = self._pages, []
        for name, m in pages:
            m.close()
            if self._creator:
                try:
                    os.unlink(os.path.join(self.directory, name))
                except FileNotFoundError:
                    pass


def _new_page(entries: int, directory: str) -> tuple[str, mmap.mmap]:
    name = f"cudaipc4j-{os.getpid()}-{secrets.token_hex(8)}-torchleases"
    path = os.path.join(directory, name)
    size = HEADER + ENTRY * entries
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        try:
            os.fchmod(fd, 0o600)
            os.posix_fallocate(fd, 0, size)  # a full /dev/shm is this error, not a SIGBUS at the first write
        except OSError as e:
            os.unlink(path)
            raise LeaseError(f"cannot make torch lease book page {path} of {size} bytes: {e.strerror}") from None
        m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(fd)
    _PAGE.pack_into(m, 0, MAGIC, VERSION, entries, os.getpid(), 0, 0)
    return name, m


def _open_page(name: str, directory: str) -> tuple[str, mmap.mmap]:
    if "/" in name or not name.startswith("cudaipc4j-"):
        raise LeaseError(f"{name!r} is not a lease book page's name (cudaipc4j-...)")
    path = os.path.join(directory, name)

    def size_of(st: os.stat_result) -> int:
        if st.st_uid != os.getuid() or st.st_size < HEADER:
            raise LeaseError(f"{path} is not a torch lease book page of this user")
        return st.st_size

    try:
        m = map_existing(path, size_of)
    except OSError as e:
        raise LeaseError(f"cannot open torch lease book page {path}: {e.strerror}") from None
    magic, version, entries = _PAGE.unpack_from(m, 0)[:3]
    if magic != MAGIC or version != VERSION or entries < 1 or len(m) != HEADER + ENTRY * entries:
        m.close()
        raise LeaseError(f"{path} is not a torch lease book page of version {VERSION}")
    return name, m


class TorchLeases:
    """This process's book of torch slots held, with its watcher when ``watch``. Thread-safe."""

    def __init__(self, counter_directory: str | None = None, *, watch: bool = True, first_page: int = FIRST_PAGE,
                 directory: str = SHM_DIRECTORY) -> None:
        self.counter_directory = torch_counters.DIRECTORY if counter_directory is None else counter_directory
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._book = LeaseBook.create(first_page, directory)
        self._storages: dict[int, Any] = {}
        self._free: list[int] = []
        self._fresh = 0
        self.watcher: subprocess.Popen[bytes] | None = None
        if watch:
            try:
                self.watcher = _start_watcher(self._book, self.counter_directory)
            except BaseException:
                self._book.close()
                raise

    @property
    def book_paths(self) -> list[str]:
        return self._book.paths()

    def hold(self, counter_name: str, slot: int) -> int:
        """Records ``slot`` of ``counter_name`` as held before torch's reader takes the share; returns its entry."""
        with self._lock:
            if self._free:
                i = self._free.pop()
            else:
                if self._fresh == self._book.capacity:
                    self._sweep_or_grow()
                i = self._free.pop() if self._free else self._next_fresh()
            self._book.hold(i, counter_name, slot)
            return i

    def _next_fresh(self) -> int:
        self._fresh += 1
        return self._fresh - 1

    def _sweep_or_grow(self) -> None:
        """Frees the entries whose storage torch has given back; grows the book unless that freed a quarter."""
        for i, storage in list(self._storages.items()):
            if storage.expired():
                del self._storages[i]
                self._book.set_state(i, FREE)
                self._free.append(i)
        if len(self._free) < self._book.capacity // 4:
            self._book.grow()

    def track(self, entry: int, storage: Any) -> None:
        """Entry ``entry`` stays held until ``storage.expired()`` (torch's ``StorageWeakRef`` of the share's storage:
        torch's reader gives the slot back when the storage dies)."""
        with self._lock:
            self._storages[entry] = storage

    def drop(self, entry: int) -> None:
        """Entry ``entry`` holds nothing any more (its slot is no longer this process's to give back)."""
        with self._lock:
            self._storages.pop(entry, None)
            self._book.set_state(entry, FREE)
            self._free.append(entry)

    def held(self) -> int:
        """The entries held now, storages torch has given back but not yet swept included."""
        with self._lock:
            return self._fresh - len(self._free)


def _start_watcher(book: LeaseBook, counters: str) -> subprocess.Popen[bytes]:
    # This package's own folder first, whatever the environment says: the watcher runs the code this reader runs.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    start = ("import sys, runpy; sys.path.insert(0, sys.argv.pop(1));"
             " runpy.run_module('cudaipc4j.torch_leases', run_name='__main__', alter_sys=True)")
    cmd = [sys.executable, "-c", start, package_root, book.name, os.path.abspath(counters), str(os.getpid())]
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, close_fds=True)
    except OSError as e:
        raise LeaseError(f"cannot start the torch lease watcher ({cmd[0]}): {e.strerror}") from None
    ready, _, _ = select.select([p.stdout], [], [], _WATCHER_START_SECONDS)
    line = p.stdout.readline() if ready else b""
    if line != b"ready\n":
        p.kill()
        p.wait()
        raise LeaseError(f"the torch lease watcher did not start (exit {p.returncode}); its errors are on this"
                         f" process's stderr")
    return p


_default: TorchLeases | None = None
_default_lock = threading.Lock()


def start() -> TorchLeases:
    """This process's leases, with their watcher (a Python process, about a tenth of a second to start): started
    here once, or by the first torch open. Call it early to keep that off the first open."""
    global _default
    with _default_lock:
        if _default is None or _default.pid != os.getpid():  # a forked child has its own leases and watcher
            _default = TorchLeases()
        return _default


def _watch(book_name: str, counters: str, reader: int) -> int:
    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)  # a terminal's or a process group's signal: the watcher ends with its reader
    book = LeaseBook.open(book_name)
    try:
        pidfd = pidfd_open(reader)
    except FdAccessError:
        pidfd = -1
    # a pid names our reader only while it is our parent: if it died before pidfd_open, the pid may be anyone's
    if pidfd >= 0 and os.getppid() == reader:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        poll = select.poll()
        poll.register(pidfd, select.POLLIN)
        done = False
        while not done:
            for fd, _ in poll.poll():
                done = done or fd == pidfd
    return _finish(book, counters)


def _finish(book: LeaseBook, counters: str) -> int:
    status = 0
    if not book.closed():
        by_file: dict[str, list[tuple[int, int]]] = {}
        for i, name, slot in book.held():
            by_file.setdefault(name, []).append((i, slot))
        for name, held in by_file.items():
            try:
                torch_counters.give_back_all(name, [slot for _, slot in held], counters)
            except (OSError, ValueError, Error) as e:
                sys.stderr.write(f"cudaipc4j lease watcher: cannot give back {len(held)} slot(s) of {name}: {e}\n")
                status = 1
        for path in book.paths():
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError as e:
                sys.stderr.write(f"cudaipc4j lease watcher: cannot remove {path}: {e.strerror}\n")
                status = 1
    book.close()
    return status


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.stderr.write("usage: python -m cudaipc4j.torch_leases <lease book> <counter directory> <reader pid>\n")
        sys.exit(2)
    sys.exit(_watch(sys.argv[1], sys.argv[2], int(sys.argv[3])))
