"""Signing into a holder table laid out as org.cudaipc4j.coord.ExportHolders writes it (docs/interop-format.md, "The
holder table")."""
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from cudaipc4j import holders as h

PYTHON_DIR = str(Path(__file__).resolve().parents[1])


def make_table(tmp_path, capacity=4, name="cudaipc4j-1-00ff-holders"):
    # as ExportHolders.create: zeroed entries, capacity at 8, the magic at 0 written last
    data = bytearray(h.HEADER + capacity * h.ENTRY)
    struct.pack_into("<i", data, 8, capacity)
    struct.pack_into("<Q", data, 0, h.MAGIC)
    (tmp_path / name).write_bytes(bytes(data))
    return name


def entry(tmp_path, name, i):
    return struct.unpack_from("<Qqqq", (tmp_path / name).read_bytes(), h.HEADER + i * h.ENTRY)


def test_start_millis_matches_the_jdks_formula_for_this_process():
    ticks = int(Path("/proc/self/stat").read_bytes().rsplit(b")", 1)[1].split()[19])
    btime = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                 if line.startswith("btime "))
    assert h.start_millis(os.getpid()) == btime * 1000 + ticks * 1000 // os.sysconf("SC_CLK_TCK")
    assert h.start_millis(2 ** 22 + 7) == -1  # above pid_max: no such process


def test_hold_writes_the_entry_and_release_frees_it(tmp_path):
    name = make_table(tmp_path)
    table = h.HolderTable(name, str(tmp_path))
    try:
        hold = table.hold(42)
        word, pid, start, key = entry(tmp_path, name, 0)
        assert (pid, start, key) == (os.getpid(), h.start_millis(os.getpid()), 42)
        assert word == os.getpid() << 32 | 4 | h.HELD  # generation 4 after the first claim
        assert table.holders(42) == [os.getpid()] and table.holders(7) == []
        second = table.hold(42)
        assert second.entry == 1 and table.holders(42) == [os.getpid()] * 2
        hold.release()
        hold.release()  # idempotent
        assert entry(tmp_path, name, 0)[0] == 4  # free, the generation kept
        assert table.holders(42) == [os.getpid()]
        again = table.hold(43)
        assert again.entry == 0 and entry(tmp_path, name, 0)[0] == os.getpid() << 32 | 8 | h.HELD
    finally:
        table.close()
    assert entry(tmp_path, name, 1)[0] & h.STATE == h.FREE  # close released the rest
    assert entry(tmp_path, name, 0)[0] & h.STATE == h.FREE


def test_a_full_table_reclaims_a_dead_holders_entry(tmp_path):
    name = make_table(tmp_path, capacity=1)
    code = ("import sys; sys.path.insert(0, %r); from cudaipc4j import holders as h; "
            "t = h.HolderTable(%r, %r); t.hold(5); print('held', flush=True); sys.stdin.read()"
            % (PYTHON_DIR, name, str(tmp_path)))
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"held\n"
        table = h.HolderTable(name, str(tmp_path))
        try:
            assert table.holders(5) == [child.pid]
            with pytest.raises(h.HoldersError, match="is full: 1 holds by live processes"):
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


@pytest.mark.parametrize("content, message", [
    (b"", "not an export holder table (0 bytes)"),
    (b"\0" * 64, "magic 0x0"),
    (struct.pack("<Qi", h.MAGIC, 9) + b"\0" * 52, "damaged (capacity 9 in 64 bytes)"),
])
def test_what_is_no_table_is_refused(tmp_path, content, message):
    (tmp_path / "cudaipc4j-1-bad-holders").write_bytes(content)
    with pytest.raises(h.HoldersError, match=message.replace("(", r"\(").replace(")", r"\)")):
        h.HolderTable("cudaipc4j-1-bad-holders", str(tmp_path))


def test_names_and_missing_tables_are_refused(tmp_path):
    with pytest.raises(h.HoldersError, match="not a holder table's name"):
        h.HolderTable("../etc/passwd", str(tmp_path))
    with pytest.raises(h.HoldersError, match="cannot open the holder table .*No such file"):
        h.HolderTable("cudaipc4j-1-gone-holders", str(tmp_path))
