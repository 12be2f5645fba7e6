"""torch's handle formats, built as torch's source writes them (c10/cuda/CUDACachingAllocator.cpp:
NativeCachingAllocator::shareIpcHandle writes [SHAREABLE_HANDLE_VERSION][ShareableHandleType][payload];
ExpandableSegment::share writes ShareHeader {pid_t pid; size_t segment_size; size_t num_handles} and one int fd or
CUmemFabricHandle per chunk), and the bytes torch 2.11 wrote on the GPU machine."""
import json
import struct
from pathlib import Path

from cudaipc4j import torch_handle as th

from . import support

IPC = bytes(range(64))
FABRIC = [bytes([i]) * 64 for i in (1, 2, 3)]
CAPTURED = Path(__file__).resolve().parents[2] / "interop-golden" / "torch-2.11"


def by_hand_v2_e(pid, segment_size, fds):
    # pid_t, 4 bytes of padding (zero since pytorch #161885), size_t, size_t: 24 bytes, then int fds
    return b"\x02e" + struct.pack("<i", pid) + b"\0" * 4 + struct.pack("<QQ", segment_size, len(fds)) + \
        b"".join(struct.pack("<i", fd) for fd in fds)


def captured():
    return sorted(CAPTURED.glob("*.json")) if CAPTURED.is_dir() else []


class TorchHandleTest(support.TestCase):
    def test_raw_64_bytes_is_torch_2_4s_handle(self):
        h = th.parse(IPC)
        assert (h.version, h.type, h.ipc_handle) == (0, "c", IPC)

    def test_c_is_the_same_66_bytes_in_every_version(self):
        for version in [1, 2, 3]:
            with self.subTest(version=version):
                raw = bytes([version]) + b"c" + IPC
                assert th.build_c(IPC, version) == raw
                h = th.parse(raw)
                assert (h.version, h.type, h.ipc_handle) == (version, "c", IPC)

    def test_the_e_handle_seen_on_torch_2_11(self):
        raw = bytes.fromhex("02 65 cb010000 00000000 0000400100000000 0100000000000000 2d000000".replace(" ", ""))
        assert raw == by_hand_v2_e(459, 20 << 20, [45]) == th.build_e(459, 20 << 20, fds=[45])
        h = th.parse(raw)
        assert (h.version, h.type, h.pid, h.segment_size, h.handle_type, h.fds) == (2, "e", 459, 20 << 20, "posix_fd",
                                                                                     (45,))
        two = th.parse(by_hand_v2_e(459, 2 << 20, [46, 47]))
        assert len(by_hand_v2_e(459, 2 << 20, [46, 47])) == 34 and two.fds == (46, 47) and two.num_handles == 2

    def test_e_v1_has_no_fabric_handles(self):
        assert th.parse(th.build_e(7, 2 << 20, fds=[3, 4, 5], version=1)).fds == (3, 4, 5)
        with self.assertRaisesRegex(ValueError, "announces 3 chunks but carries 192 bytes of chunks: neither 12 \\(file"
                                                " descriptors\\), version 1 has no fabric"):
            th.parse(th.build_e(7, 2 << 20, fabric=FABRIC, version=1))

    def test_e_v2_fds_and_fabric_told_apart_by_length(self):
        fds = th.parse(th.build_e(7, 2 << 20, fds=[3, 4, 5], version=2))
        assert (fds.handle_type, fds.fds, fds.fabric_handles) == ("posix_fd", (3, 4, 5), ())
        fab = th.parse(th.build_e(7, 2 << 20, fabric=FABRIC, version=2))
        assert (fab.handle_type, fab.fds, fab.fabric_handles) == ("fabric", (), tuple(FABRIC))

    def test_uninitialised_padding_of_older_torch_is_ignored(self):
        raw = bytearray(by_hand_v2_e(459, 2 << 20, [9]))
        raw[6:10] = b"\xde\xad\xbe\xef"
        assert th.parse(bytes(raw)).pid == 459

    def test_e_v3_has_a_32_byte_header_with_the_handle_type(self):
        raw = th.build_e(12, 2 << 20, fds=[30, 31], version=3)
        assert raw == b"\x03e" + struct.pack("<i4xQQi4x", 12, 2 << 20, 2, 1) + struct.pack("<2i", 30, 31)
        assert len(raw) == 2 + 32 + 8
        assert th.parse(raw).fds == (30, 31)
        fab = th.build_e(12, 2 << 20, fabric=FABRIC[:1], version=3)
        assert th.parse(fab).handle_type == "fabric" and len(fab) == 2 + 32 + 64
        unspecified = b"\x03e" + struct.pack("<i4xQQi4x", 12, 2 << 20, 1, 0) + struct.pack("<i", 8)
        assert th.parse(unspecified).fds == (8,)

    def test_a_versioned_handle_is_never_64_bytes(self):
        assert len(th.build_c(IPC, 2)) == 66
        assert min(len(th.build_e(1, 1, fds=[0], version=v)) for v in (1, 2, 3)) == 30

    def test_not_bytes_is_refused(self):
        with self.assertRaisesRegex(ValueError, "bytes, got str"):
            th.parse("0263")

    def test_every_handle_torch_2_11_wrote_parses(self):
        for path in captured():
            with self.subTest(path=path.name):
                case = json.loads(path.read_text(encoding="utf-8"))
                if case["handle"] is None:
                    assert case["storage_bytes"] == 0
                    continue
                h = th.parse(bytes.fromhex(case["handle"]))
                assert h.version == 2
                if case["allocator"] == "expandable_segments":
                    assert h.type == "e" and h.handle_type == "posix_fd" and h.pid > 0 and h.num_handles >= 1
                    assert h.segment_size % (2 << 20) == 0
                    assert case["storage_offset_bytes"] + case["storage_bytes"] <= h.segment_size * h.num_handles
                else:
                    assert h.type == "c" and len(h.ipc_handle) == 64

    def test_captured_handles_are_present_when_the_directory_is(self):
        if not CAPTURED.is_dir():
            self.skipTest("interop-golden/torch-2.11/ is absent")
        assert captured(), "interop-golden/torch-2.11/ has no case"
