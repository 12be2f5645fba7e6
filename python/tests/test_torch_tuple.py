"""torch_tuple(): torch's own rebuild_cuda_tensor arguments for a torch descriptor, against a stand-in torch module
(no GPU, no torch needed): the fields in torch's order, a Java-minted tuple as TorchTupleExport writes it, the
captured shares of torch 2.11 given back as torch wrote them, and the refusals."""
import inspect
import json
import types
from dataclasses import replace
from unittest import mock

from cudaipc4j import descriptor, sharing, tuples
from cudaipc4j.descriptor import DTYPE_SIZES

from . import support
from .golden_cases import CASES
from .test_sharing import captured, rebuild_args

# What TorchTupleExport.mint writes for a float32 [512, 256] view at element offset 4 of a 1 MiB storage at 1 MiB:
# the raw 64-byte handle, torch's counter-file name with the JVM's pid, a new slot, no event.
JAVA_MINTED = ('{"cudaipc4j_descriptor":"1.0","kind":"torch","device_uuid":"GPU-01234567-89ab-cdef-0123-456789abcdef",'
               '"bytes":1048576,"exporter":{"pid":4242,"pid_namespace":4026531836,"export_id":9},"torch":{"handle":"'
               + bytes(range(64)).hex() + '","storage_bytes":1048576,"storage_offset_bytes":1048576,'
               '"ref_counter_file":"/torch_4242_3735928559_0","ref_counter_offset":3,"device_index":0},'
               '"tensor":{"dtype":"float32","shape":[512,256],"strides":[256,1],"offset":4}}')


def _rebuild_cuda_tensor(tensor_cls, tensor_size, tensor_stride, tensor_offset, storage_cls, dtype, storage_device,
                         storage_handle, storage_size_bytes, storage_offset_bytes, requires_grad, ref_counter_handle,
                         ref_counter_offset, event_handle, event_sync_required):
    """torch's signature (torch/multiprocessing/reductions.py), returning what it was given by name."""
    return dict(locals())


class TorchTupleTest(support.TestCase):
    """Against a stand-in torch module; each tuple built in a fresh record of built slots."""

    def setUp(self):
        self.torch = self.fake_torch()

    def fake_torch(self):
        torch = types.ModuleType("torch")
        torch.Tensor = type("Tensor", (), {})
        torch.Size = type("Size", (tuple,), {})
        torch.storage = types.ModuleType("torch.storage")
        torch.storage.TypedStorage = type("TypedStorage", (), {})
        for name in DTYPE_SIZES:
            setattr(torch, name, "torch." + name)
        reductions = types.ModuleType("torch.multiprocessing.reductions")
        reductions.rebuild_cuda_tensor = _rebuild_cuda_tensor
        self.patch_modules({"torch": torch, "torch.storage": torch.storage,
                            "torch.multiprocessing.reductions": reductions})
        self.enterContext(mock.patch.object(tuples, "_built", set()))
        return torch

    def test_the_fields_are_rebuild_cuda_tensors_parameters_in_order(self):
        assert tuple(inspect.signature(_rebuild_cuda_tensor).parameters) == tuples.FIELDS
        # the order docs/interop-guide.md and the spec give for reduce_tensor's arguments
        assert tuples.FIELDS[7:10] == ("storage_handle", "storage_size_bytes", "storage_offset_bytes")
        assert tuples.FIELDS[11:] == ("ref_counter_handle", "ref_counter_offset", "event_handle",
                                      "event_sync_required")

    def test_a_java_minted_tuple_rebuilds_as_torch_expects(self):
        fake_torch = self.torch
        args = tuples.torch_tuple(JAVA_MINTED, device=2)
        got = _rebuild_cuda_tensor(*args)
        assert got["tensor_cls"] is fake_torch.Tensor and got["storage_cls"] is fake_torch.storage.TypedStorage
        assert isinstance(got["tensor_size"], fake_torch.Size) and tuple(got["tensor_size"]) == (512, 256)
        assert got["tensor_stride"] == (256, 1) and got["tensor_offset"] == 4
        assert got["dtype"] == "torch.float32" and got["storage_device"] == 2
        assert got["storage_handle"] == bytes(range(64)), "the raw 64-byte handle"
        assert (got["storage_size_bytes"], got["storage_offset_bytes"]) == (1 << 20, 1 << 20)
        assert got["requires_grad"] is False
        assert got["ref_counter_handle"] == b"/torch_4242_3735928559_0" and got["ref_counter_offset"] == 3
        assert got["event_handle"] == bytes(64) and got["event_sync_required"] is False, "synchronized, no event"
        # torch's C++ checks: bytes for handle, counter and event, a real bool for the flag (THPStorage_newSharedCuda)
        for name in ("storage_handle", "ref_counter_handle", "event_handle"):
            assert type(got[name]) is bytes
        assert type(got["event_sync_required"]) is bool

    def test_the_device_is_found_by_uuid_unless_given(self):
        self.enterContext(mock.patch("cudaipc4j.devices.ordinal_of",
                                     lambda uuid: {"GPU-01234567-89ab-cdef-0123-456789abcdef": 5}[uuid]))
        assert tuples.torch_tuple(JAVA_MINTED)[6] == 5

    def test_torchs_own_shares_come_back_as_torch_wrote_them(self):
        for path in captured():
            with self.subTest(path=path.name), mock.patch.object(tuples, "_built", set()):
                case = json.loads(path.read_text(encoding="utf-8"))
                written = rebuild_args(case)
                d = sharing.from_rebuild_args(written, device_uuid=case["device_uuid"])
                args = tuples.torch_tuple(descriptor.to_json(d), device=case["device_index"])
                assert len(args) == 15
                assert tuple(args[1]) == written[1] and args[2:4] == written[2:4] and args[5:13] == written[5:13]
                if case["handle"] is not None and case["event_sync_required"]:
                    assert args[13:] == (written[13], True), "torch's event, waited on by torch's reader"
                else:
                    assert args[14] is False

    def test_one_tuple_per_slot_in_a_process(self):
        tuples.torch_tuple(JAVA_MINTED, device=0)
        with self.assertRaisesRegex(ValueError, "^slot 3 of /torch_4242_3735928559_0 was made into a tuple before in"
                                                " this process: each tuple gives its slot back once; ask the exporter"
                                                " for another$"):
            tuples.torch_tuple(JAVA_MINTED, device=0)

    def test_other_kinds_are_refused_in_one_line(self):
        for case, why in [
            ("legacy", "^a legacy descriptor has no torch tuple: it carries no reference-counter slot"),
            ("vmm-fd", "^a vmm descriptor has no torch tuple: torch would take it for an expandable segment"),
            ("pool-fd", "^a pool descriptor has no torch tuple: pool memory has no cuIpcGetMemHandle handle"),
        ]:
            with self.subTest(case=case):
                with self.assertRaisesRegex(ValueError, why) as e:
                    tuples.torch_tuple(CASES[case], device=0)
                assert "\n" not in str(e.exception)

    def test_a_descriptor_without_tensor_or_device_is_refused(self):
        d = descriptor.from_json(JAVA_MINTED)
        with self.assertRaisesRegex(ValueError, "without its tensor's dtype and shape"):
            tuples.torch_tuple(replace(d, tensor=None), device=0)
        with self.assertRaisesRegex(ValueError, "names no device: pass device="):
            tuples.torch_tuple(replace(d, device_uuid=None))
