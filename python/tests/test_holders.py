"""Signing into a holder table laid out as org.cudaipc4j.coord.ExportHolders writes it (docs/interop-format.md, "The
holder table")."""
import os
import struct
import subprocess
import sys
from pathlib import Path

from cudaipc4j import holders as h

from . import support

PYTHON_DIR = str(Path(__file__).resolve().parents[1])


def make_table(folder, capacity=4, name="cudaipc4j-1-00ff-holders"):
    # as ExportHolders.create: zeroed entries, capacity at 8, the magic at 0 written last
    data = bytearray(h.HEADER + capacity * h.ENTRY)
    struct.pack_into("<i", data, 8, capacity)
    struct.pack_into("<Q", data, 0, h.MAGIC)
    (folder / name).write_bytes(bytes(data))
    return name


def entry(folder, name, i):
    return struct.unpack_from("<Qqqq", (folder / name).read_bytes(), h.HEADER + i * h.ENTRY)


NO_TABLES = [
    (b"", "not an export holder table (0 bytes)"),
    (b"\0" * 64, "magic 0x0"),
    (struct.pack("<Qi", h.MAGIC, 9) + b"\0" * 52, "damaged (capacity 9 in 64 bytes)"),
]


class HoldersTest(support.TestCase):
    def test_start_millis_matches_the_jdks_formula_for_this_process(self):
        ticks = int(Path("/proc/self/stat").read_bytes().rsplit(b")", 1)[1].split()[19])
        btime = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                     if line.startswith("btime "))
        assert h.start_millis(os.getpid()) == btime * 1000 + ticks * 1000 // os.sysconf("SC_CLK_TCK")
        assert h.start_millis(2 ** 22 + 7) == -1  # above pid_max: no such process

    def test_hold_writes_the_entry_and_release_frees_it(self):
        folder = self.temporary_directory()
        name = make_table(folder)
        table = h.HolderTable(name, str(folder))
        try:
            hold = table.hold(42)
            word, pid, start, key = entry(folder, name, 0)
            assert (pid, start, key) == (os.getpid(), h.start_millis(os.getpid()), 42)
            assert word == os.getpid() << 32 | 4 | h.HELD  # generation 4 after the first claim
            assert table.holders(42) == [os.getpid()] and table.holders(7) == []
            second = table.hold(42)
            assert second.entry == 1 and table.holders(42) == [os.getpid()] * 2
            hold.release()
            hold.release()  # idempotent
            assert entry(folder, name, 0)[0] == 4  # free, the generation kept
            assert table.holders(42) == [os.getpid()]
            # the search starts after the entry taken last, and wraps around to the freed one
            assert [table.hold(k).entry for k in (43, 44, 45)] == [2, 3, 0]
            assert entry(folder, name, 0)[0] == os.getpid() << 32 | 8 | h.HELD  # generation 8 after a second claim
        finally:
            table.close()
        for i in range(4):
            assert entry(folder, name, i)[0] & h.STATE == h.FREE  # close released the rest

    def test_thousands_of_holds_take_an_entry_each_in_a_step(self):
        folder = self.temporary_directory()
        name = make_table(folder, capacity=20_008)
        table = h.HolderTable(name, str(folder))
        try:
            words = []
            real = table._word
            table._word = lambda i: (words.append(i), real(i))[1]
            held = [table.hold(k) for k in range(20_000)]
            assert [x.entry for x in held] == list(range(20_000))
            assert len(words) == 20_000, "one entry read per hold"
        finally:
            table.close()

    def test_a_full_table_reclaims_a_dead_holders_entry(self):
        folder = self.temporary_directory()
        name = make_table(folder, capacity=1)
        code = ("import sys; sys.path.insert(0, %r); from cudaipc4j import holders as h; "
                "t = h.HolderTable(%r, %r); t.hold(5); print('held', flush=True); sys.stdin.read()"
                % (PYTHON_DIR, name, str(folder)))
        child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert child.stdout.readline() == b"held\n"
            table = h.HolderTable(name, str(folder))
            try:
                assert table.holders(5) == [child.pid]
                with self.assertRaisesRegex(h.HoldersError, "is full: 1 holds by live processes"):
                    table.hold(6)
                child.kill()
                child.wait()
                assert table.holders(5) == []  # a dead holder does not count
                assert table.hold(6).entry == 0
            finally:
                table.close()
        finally:
            child.kill()
            child.wait()
            child.stdin.close()
            child.stdout.close()

    def test_what_is_no_table_is_refused(self):
        for content, message in NO_TABLES:
            with self.subTest(message=message):
                folder = self.temporary_directory()
                (folder / "cudaipc4j-1-bad-holders").write_bytes(content)
                with self.assertRaisesRegex(h.HoldersError, message.replace("(", r"\(").replace(")", r"\)")):
                    h.HolderTable("cudaipc4j-1-bad-holders", str(folder))

    def test_names_and_missing_tables_are_refused(self):
        folder = self.temporary_directory()
        with self.assertRaisesRegex(h.HoldersError, "not a holder table's name"):
            h.HolderTable("../etc/passwd", str(folder))
        with self.assertRaisesRegex(h.HoldersError, "cannot open the holder table .*No such file"):
            h.HolderTable("cudaipc4j-1-gone-holders", str(folder))
