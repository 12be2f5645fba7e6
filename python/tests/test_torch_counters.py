"""Giving a torch reference-counter slot back without torch, on a file laid out as torch's. No GPU needed."""
import struct

from cudaipc4j import torch_counters as tc

from . import support

NAME = "/torch_459_1234567_0"


def make(folder, slots, size=tc.FILE_BYTES):
    data = bytearray(size)
    struct.pack_into("<i", data, 0, 1)
    for i, v in slots.items():
        struct.pack_into("<q", data, tc.HEADER + 8 * i, v)
    path = folder / NAME[1:]
    path.write_bytes(bytes(data))
    return path


def read(path, i):
    return struct.unpack_from("<q", path.read_bytes(), tc.HEADER + 8 * i)[0]


REFUSED = [
    ("/etc_passwd", 0, "not a torch reference-counter name"),
    ("/torch_1_2_3/../x", 0, "not a torch reference-counter name"),
    (NAME, 10000, "slot 10000 is outside"),
    (NAME, -1, "slot -1 is outside"),
]


class TorchCountersTest(support.TestCase):
    def test_a_slot_goes_back_once_and_nothing_else_changes(self):
        folder = self.temporary_directory()
        path = make(folder, {3: 2, 9999: 1})
        before = path.read_bytes()
        assert tc.give_back(NAME, 3, str(folder)) is True
        assert read(path, 3) == 1
        assert tc.give_back(NAME, 9999, str(folder)) is True
        assert tc.give_back(NAME, 9999, str(folder)) is False, "at 0: given back already"
        assert read(path, 9999) == 0
        after = bytearray(path.read_bytes())
        struct.pack_into("<q", after, tc.HEADER + 8 * 3, 2)
        struct.pack_into("<q", after, tc.HEADER + 8 * 9999, 1)
        assert bytes(after) == before, "only the two slots changed; the header's process count is untouched"

    def test_a_gone_file_is_nothing_to_give_back(self):
        folder = self.temporary_directory()
        assert tc.give_back(NAME, 0, str(folder)) is False

    def test_other_names_and_slots_are_refused(self):
        for name, slot, message in REFUSED:
            with self.subTest(name=name, slot=slot):
                folder = self.temporary_directory()
                make(folder, {})
                with self.assertRaisesRegex(ValueError, message):
                    tc.give_back(name, slot, str(folder))

    def test_a_file_not_sized_as_torchs_is_refused(self):
        folder = self.temporary_directory()
        make(folder, {}, size=4096)
        with self.assertRaisesRegex(ValueError, "has 4096 bytes, torch's have 80064"):
            tc.give_back(NAME, 0, str(folder))
