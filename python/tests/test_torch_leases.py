"""The Python reader's torch leases: the book's pages (laid out as the Java reader's), entries taken again before the
book grows, and the watcher that gives every slot back when the reader dies, at 100,000 shares too. Counter files
laid out as torch's; no GPU needed."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

from cudaipc4j import torch_counters as tc
from cudaipc4j import torch_leases as tl

from . import support

PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def counter_file(folder, number, held):
    """``/torch_<pid>_<random>_<number>`` with the process count 1 and slots ``0..held-1`` at 1, as torch's producer
    leaves them; returns its name."""
    name = f"/torch_{os.getpid()}_{1000 + number}_{number}"
    data = bytearray(tc.FILE_BYTES)
    data[0:4] = (1).to_bytes(4, "little")
    for i in range(held):
        data[tc.HEADER + 8 * i:tc.HEADER + 8 * i + 8] = (1).to_bytes(8, "little")
    path = folder / name[1:]
    path.write_bytes(bytes(data))
    path.chmod(0o600)
    return name


def slots(folder, name):
    data = (folder / name[1:]).read_bytes()
    return memoryview(data)[tc.HEADER:].cast("q")


def process_count(folder, name):
    return int.from_bytes((folder / name[1:]).read_bytes()[0:4], "little")


def gone(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            s = f.read()
    except FileNotFoundError:
        return True
    return s[s.rindex(b")") + 2:s.rindex(b")") + 3] in (b"Z", b"X")


def until(seconds, condition):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)  # a bound on a process this test does not own; no event to wait on
    return True


class StorageRef:
    """Stands for torch's StorageWeakRef of a storage."""

    dead = False

    def expired(self):
        return self.dead


class LeaseBookTest(support.TestCase):
    def test_every_page_is_found_from_the_first_and_entries_map_to_their_pages(self):
        book = tl.LeaseBook.create(3)
        try:
            for _ in range(3):
                book.grow()
            assert book.capacity == 3 + 6 + 12 + 24, "each page twice the last"
            indexes = [0, 2, 3, 8, 9, 20, 21, 44]
            for i in indexes:
                book.hold(i, f"/torch_1_2_{i}", 100 + i)
            with self.assertRaises(IndexError):
                book.hold(45, "/torch_1_2_3", 1)
            watcher = tl.LeaseBook.open(book.name)
            try:
                assert watcher.capacity == 3, "the first page only, until read"
                assert watcher.held() == [(i, f"/torch_1_2_{i}", 100 + i) for i in indexes]
                assert watcher.capacity == 45 and watcher.paths() == book.paths()
            finally:
                watcher.close()
            assert all(os.path.exists(p) for p in book.paths()), "the watcher's view removes nothing"
        finally:
            paths = book.paths()
            book.close()
        assert not any(os.path.exists(p) for p in paths), "the reader's close removes every page"

    def test_a_page_of_another_kind_is_refused(self):
        with self.assertRaisesRegex(tl.LeaseError, "not a lease book page's name"):
            tl.LeaseBook.open("../etc")
        with self.assertRaisesRegex(tl.LeaseError, "cannot open torch lease book page"):
            tl.LeaseBook.open("cudaipc4j-1-00-none")


class TorchLeasesTest(support.TestCase):
    def test_entries_torch_gave_back_are_taken_again_before_the_book_grows(self):
        leases = tl.TorchLeases(watch=False, first_page=4)
        self.addCleanup(leases._book.close)
        storages = {}
        for i in range(4):
            e = leases.hold("/torch_1_2_0", i)
            storages[e] = StorageRef()
            leases.track(e, storages[e])
        assert leases._book.capacity == 4
        storages[1].dead = storages[2].dead = True  # torch's reader gave their slots back
        again = {leases.hold("/torch_1_2_0", 4), leases.hold("/torch_1_2_0", 5)}
        assert again == {1, 2} and leases._book.capacity == 4, "half the book freed: no page added"
        assert leases.hold("/torch_1_2_0", 6) == 4 and leases._book.capacity == 12, "a full book grows"
        leases.drop(0)
        assert leases._book.state(0) == tl.FREE and leases.hold("/torch_1_2_0", 7) == 0
        assert [slot for _, _, slot in tl.LeaseBook.held(leases._book)] == [7, 5, 4, 3, 6]
        assert leases.held() == 5


class DefaultLeasesTest(support.TestCase):
    def test_a_forked_child_starts_leases_of_its_own(self):
        parent = tl.TorchLeases(watch=False)
        self.addCleanup(parent._book.close)
        self.enterContext(mock.patch.object(tl, "_default", parent))
        assert tl.start() is parent
        parent.pid = -1  # as a forked child sees its parent's
        child = tl.start()
        self.addCleanup(child._book.close)
        self.addCleanup(lambda: (child.watcher.stdout.close(), child.watcher.kill(), child.watcher.wait()))
        assert child is not parent and child.pid == os.getpid() and child.watcher is not None


class WatcherTest(support.TestCase):
    """Real processes: a reader holding slots, killed or exiting, and its watcher; handshakes on their output."""

    def start_reader(self, folder, count, names, dropped=-1):
        env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT))
        p = subprocess.Popen([sys.executable, "-m", "tests.lease_holder", str(folder), str(count), str(dropped),
                              *names], cwd=PACKAGE_ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.addCleanup(self.end, p)
        line = p.stdout.readline().decode().split()
        assert line[:1] == ["ready"], line
        return p, int(line[1]), line[2]

    @staticmethod
    def end(p):
        if p.poll() is None:
            p.kill()
        p.wait()
        p.stdin.close()
        p.stdout.close()

    def test_a_killed_reader_of_a_hundred_thousand_shares_gets_every_slot_back_within_five_seconds(self):
        folder = self.temporary_directory()
        shares = 100_000
        names = [counter_file(folder, f, tc.SLOTS) for f in range(shares // tc.SLOTS)]
        p, watcher, book = self.start_reader(folder, shares, names, dropped=12345)
        assert all(all(v == 1 for v in slots(folder, n)) for n in names), "held, not incremented"
        killed = time.monotonic()
        p.send_signal(signal.SIGKILL)
        back = until(5, lambda: sum(sum(slots(folder, n)) for n in names) == 1)
        print(f"{shares - 1} slots back {1000 * (time.monotonic() - killed):.0f} ms after the SIGKILL")
        assert back, "every slot back within 5 s"
        assert slots(folder, names[1])[2345] == 1, "a slot whose entry was dropped is not the watcher's"
        assert until(5, lambda: gone(watcher)), "the watcher ends after its work"
        assert not os.path.exists(book), "the watcher removed the lease book"
        pid_pages = [f for f in os.listdir(tl.SHM_DIRECTORY) if f.startswith(f"cudaipc4j-{p.pid}-")]
        assert pid_pages == [], "and every page of it"
        assert all(process_count(folder, n) == 1 for n in names), "the process count is never touched"

    def test_a_reader_that_exits_without_freeing_its_tensors_gets_its_slots_back_too(self):
        folder = self.temporary_directory()
        name = counter_file(folder, 0, 9)
        p, watcher, book = self.start_reader(folder, 8, [name])
        p.stdin.write(b"exit\n")
        p.stdin.flush()
        assert until(5, lambda: list(slots(folder, name)[:9]) == [0] * 8 + [1]), "back within 5 s; slot 8 not held"
        assert until(5, lambda: gone(watcher))
        assert not os.path.exists(book)
