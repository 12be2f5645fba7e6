"""``torch_tuple(descriptor)``: the arguments of ``torch.multiprocessing.reductions.rebuild_cuda_tensor`` for a
``torch`` descriptor, such as one a Java ``TorchTupleExport`` minted for an unmodified torch consumer (vLLM's and
sglang's weight loaders call ``rebuild_cuda_tensor(*args)`` on what they receive).

torch is imported by the call, not by this module. The tuple is torch's own: torch's reader gives the descriptor's
slot back once, when the storage dies or at once when the storage is open already, so **one tuple, one rebuild**.
A tuple rebuilt twice releases its slot twice, and the exporter may then free memory under a live tensor: mint a
descriptor per consumer process, and build its tuple once (a second tuple of one slot is refused here, in one
process). Where the consumer can call cudaipc4j, ``cudaipc4j.open(descriptor)`` is the safer path.
"""
from __future__ import annotations

import threading
from typing import Any

from .descriptor import Descriptor, from_json
from .errors import require

#: ``rebuild_cuda_tensor``'s parameters, in order (torch/multiprocessing/reductions.py; the order of the arguments
#: ``reduce_tensor`` returns)
FIELDS = ("tensor_cls", "tensor_size", "tensor_stride", "tensor_offset", "storage_cls", "dtype", "storage_device",
          "storage_handle", "storage_size_bytes", "storage_offset_bytes", "requires_grad", "ref_counter_handle",
          "ref_counter_offset", "event_handle", "event_sync_required")

_WHY_NOT = {
    "legacy": "a legacy descriptor has no torch tuple: it carries no reference-counter slot for torch's reader to"
              " give back; have the Java exporter mint one (TorchTupleExport) or open it with cudaipc4j.open",
    "vmm": "a vmm descriptor has no torch tuple: torch would take it for an expandable segment and pidfd_getfd the"
           " exporter's file descriptors; open it with cudaipc4j.open",
    "pool": "a pool descriptor has no torch tuple: pool memory has no cuIpcGetMemHandle handle, the only kind"
            " torch's tuple can carry; open it with cudaipc4j.open",
}

_built: set[tuple[str, int]] = set()
_built_lock = threading.Lock()


def torch_tuple(descriptor: Descriptor | str | bytes, *, device: int | None = None) -> tuple[Any, ...]:
    """The 15 arguments of ``rebuild_cuda_tensor`` for a ``torch`` descriptor, so that
    ``rebuild_cuda_tensor(*torch_tuple(d))`` is the tensor.

    :param device: this process's ordinal of the descriptor's GPU; by default it is found by the descriptor's
        device UUID among the visible devices (a descriptor without one needs ``device=``)
    :raises ValueError: in one line, for another kind, a descriptor without its tensor, no device, or a slot whose
        tuple was built before in this process
    """
    d = descriptor if isinstance(descriptor, Descriptor) else from_json(descriptor)
    if d.kind != "torch":
        raise ValueError(_WHY_NOT.get(d.kind, f"a {d.kind} descriptor has no torch tuple"))
    t, s = d.tensor, d.torch
    if t is None:
        raise ValueError("a torch descriptor without its tensor's dtype and shape has no torch tuple")
    if device is not None:
        ordinal = int(device)
    elif d.device_uuid is not None:
        from . import devices
        ordinal = devices.ordinal_of(d.device_uuid)
    else:
        raise ValueError("the descriptor names no device: pass device=<this process's ordinal of the exporter's GPU>")
    torch = require("torch")
    if s.handle is not None:
        key = (s.ref_counter_file, s.ref_counter_offset)
        with _built_lock:
            if key in _built:
                raise ValueError(f"slot {s.ref_counter_offset} of {s.ref_counter_file} was made into a tuple before in"
                                 f" this process: each tuple gives its slot back once; ask the exporter for another")
            _built.add(key)
    wait = d.event is not None and d.event.wait and s.handle is not None
    return (torch.Tensor, torch.Size(t.shape), tuple(t.strides), t.offset, torch.storage.TypedStorage,
            getattr(torch, t.dtype), ordinal, s.handle, s.storage_bytes, s.storage_offset_bytes, False,
            None if s.ref_counter_file is None else s.ref_counter_file.encode(),
            0 if s.ref_counter_offset is None else s.ref_counter_offset,
            d.event.ipc_handle if wait else bytes(64), wait)
