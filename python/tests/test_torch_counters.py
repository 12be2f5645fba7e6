"""Giving a torch reference-counter slot back without torch, on a file laid out as torch's. No GPU needed."""
import struct

import pytest

from cudaipc4j import torch_counters as tc

NAME = "/torch_459_1234567_0"


def make(tmp_path, slots, size=tc.FILE_BYTES):
    data = bytearray(size)
    struct.pack_into("<i", data, 0, 1)
    for i, v in slots.items():
        struct.pack_into("<q", data, tc.HEADER + 8 * i, v)
    path = tmp_path / NAME[1:]
    path.write_bytes(bytes(data))
    return path


def read(path, i):
    return struct.unpack_from("<q", path.read_bytes(), tc.HEADER + 8 * i)[0]


def test_a_slot_goes_back_once_and_nothing_else_changes(tmp_path):
    path = make(tmp_path, {3: 2, 9999: 1})
    before = path.read_bytes()
    assert tc.give_back(NAME, 3, str(tmp_path)) is True
    assert read(path, 3) == 1
    assert tc.give_back(NAME, 9999, str(tmp_path)) is True
    assert tc.give_back(NAME, 9999, str(tmp_path)) is False, "at 0: given back already"
    assert read(path, 9999) == 0
    after = bytearray(path.read_bytes())
    struct.pack_into("<q", after, tc.HEADER + 8 * 3, 2)
    struct.pack_into("<q", after, tc.HEADER + 8 * 9999, 1)
    assert bytes(after) == before, "only the two slots changed; the header's process count is untouched"


def test_a_gone_file_is_nothing_to_give_back(tmp_path):
    assert tc.give_back(NAME, 0, str(tmp_path)) is False


@pytest.mark.parametrize("name, slot, message", [
    ("/etc_passwd", 0, "not a torch reference-counter name"),
    ("/torch_1_2_3/../x", 0, "not a torch reference-counter name"),
    (NAME, 10000, "slot 10000 is outside"),
    (NAME, -1, "slot -1 is outside"),
])
def test_other_names_and_slots_are_refused(tmp_path, name, slot, message):
    make(tmp_path, {})
    with pytest.raises(ValueError, match=message):
        tc.give_back(name, slot, str(tmp_path))


def test_a_file_not_sized_as_torchs_is_refused(tmp_path):
    make(tmp_path, {}, size=4096)
    with pytest.raises(ValueError, match="has 4096 bytes, torch's have 80064"):
        tc.give_back(NAME, 0, str(tmp_path))
