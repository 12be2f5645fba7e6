"""torch's own sharing of one CUDA tensor as named JSON fields: the 15 arguments of
torch.multiprocessing.reductions.rebuild_cuda_tensor that reduce_tensor returns, bytes in hex, with the tensor's
device UUID and the sha256 of its contiguous bytes. Used by the GPU tests' torch producer (torch_producer.py, beside
this file) and by scripts/capture-torch-handles.py, which commits these fields as fixtures."""
import hashlib
import os

import torch
from torch.multiprocessing.reductions import reduce_tensor


def _hexed(b):
    return None if b is None else bytes(b).hex()


def describe(name, tensor):
    """A new share of ``tensor`` (a new slot in torch's counter file) as a dict, in the fixtures' field order."""
    rebuild, args = reduce_tensor(tensor)
    (cls, shape, strides, offset, storage_cls, dtype, device, handle, storage_size, storage_offset, requires_grad,
     ref_counter_handle, ref_counter_offset, event_handle, event_sync_required) = args
    data = tensor.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
    expandable = "expandable_segments:True" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    return {
        "case": name,
        "torch_version": torch.__version__,
        "allocator": "expandable_segments" if expandable else "native",
        "rebuild": rebuild.__name__,
        "tensor_class": cls.__name__,
        "storage_class": storage_cls.__name__,
        "dtype": str(dtype).removeprefix("torch."),
        "shape": list(shape),
        "strides": list(strides),
        "offset": offset,
        "device_index": device,
        "device_uuid": "GPU-" + str(torch.cuda.get_device_properties(device).uuid),
        "handle": _hexed(handle),
        "storage_bytes": storage_size,
        "storage_offset_bytes": storage_offset,
        "requires_grad": requires_grad,
        "ref_counter_file": ref_counter_handle.decode() if isinstance(ref_counter_handle, bytes) else ref_counter_handle,
        "ref_counter_offset": ref_counter_offset,
        "event_handle": _hexed(event_handle),
        "event_sync_required": event_sync_required,
        "sha256": hashlib.sha256(data).hexdigest(),
    }
