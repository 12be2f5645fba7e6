"""share()'s descriptor from torch's rebuild_cuda_tensor arguments, on what torch 2.11 wrote (no GPU needed)."""
import json
from pathlib import Path

from cudaipc4j import descriptor, sharing
from cudaipc4j import torch_handle as th

from . import support

CAPTURED = Path(__file__).resolve().parents[2] / "interop-golden" / "torch-2.11"


def rebuild_args(case):
    hexed = lambda v: None if v is None else bytes.fromhex(v)  # noqa: E731
    ref = case["ref_counter_file"]
    return ("Tensor", tuple(case["shape"]), tuple(case["strides"]), case["offset"], "TypedStorage",
            "torch." + case["dtype"], case["device_index"], hexed(case["handle"]), case["storage_bytes"],
            case["storage_offset_bytes"], case["requires_grad"], None if ref is None else ref.encode(),
            case["ref_counter_offset"], hexed(case["event_handle"]), case["event_sync_required"])


def captured():
    return sorted(CAPTURED.glob("*.json")) if CAPTURED.is_dir() else []


class SharingTest(support.TestCase):
    def test_every_captured_share_becomes_a_descriptor_that_round_trips(self):
        for path in captured():
            with self.subTest(path=path.name):
                case = json.loads(path.read_text(encoding="utf-8"))
                d = sharing.from_rebuild_args(rebuild_args(case), device_uuid=case["device_uuid"], pid=459,
                                              export_id=1, pid_ns=4026531836)
                assert descriptor.from_json(descriptor.to_json(d)) == d
                assert d.device_uuid == case["device_uuid"].lower().replace("gpu-", "GPU-")
                assert d.bytes == case["storage_bytes"] and d.tensor.dtype == case["dtype"]
                assert d.tensor.shape == tuple(case["shape"]) and d.tensor.strides == tuple(case["strides"])
                if case["handle"] is None:
                    assert d.torch.handle is None and d.torch.ref_counter_file is None \
                        and d.torch.ref_counter_offset is None
                    assert d.event is None
                else:
                    assert th.parse(d.torch.handle).type == ("e" if case["allocator"] == "expandable_segments"
                                                             else "c")
                    assert d.torch.ref_counter_file == case["ref_counter_file"]
                    assert d.torch.ref_counter_offset == case["ref_counter_offset"]
                    assert (d.event is not None) == bool(case["event_sync_required"])

    def test_a_made_up_share(self):
        args = ("Tensor", (2, 3), (3, 1), 1, "TypedStorage", "torch.bfloat16", 0, th.build_c(bytes(64)), 64, 512,
                False, b"/torch_1_2_0", 9, bytes(range(64)), False)
        d = sharing.from_rebuild_args(args, device_uuid=None, pid=7, export_id=3, pid_ns=0)
        assert d.event is None and d.device_uuid is None and d.torch.storage_offset_bytes == 512
        assert d.exporter == descriptor.Exporter(7, 0, 3)

    def test_bad_arguments_are_refused(self):
        with self.assertRaisesRegex(ValueError, "15 arguments, got 2"):
            sharing.from_rebuild_args((1, 2), device_uuid=None)
        with self.assertRaisesRegex(ValueError, "dtype quint8 cannot be described"):
            sharing.dtype_name("torch.quint8")

    def test_export_ids_are_unique(self):
        a, b = sharing.next_export_id(), sharing.next_export_id()
        assert b > a >= 1
