"""``share(tensor)``: the descriptor of a CUDA torch tensor, made through torch's own sharing
(``torch.multiprocessing.reductions.reduce_tensor``, which calls ``storage._share_cuda_()``), so the producer's
reference counting stays torch's: each call takes a new slot in torch's counter file that the reader releases once.
"""
from __future__ import annotations

import itertools
import os
import socket
import threading
from collections.abc import Sequence
from typing import Any

from . import fdsocket, torch_handle
from .descriptor import DTYPE_SIZES, Descriptor, Event, Exporter, Tensor, TorchShare, normalize_uuid, to_json
from .errors import require
from .pidfd import pid_namespace

_ids = itertools.count(1)
_ids_lock = threading.Lock()


def next_export_id() -> int:
    with _ids_lock:
        return next(_ids)


def dtype_name(dtype: Any) -> str:
    """torch's dtype name without ``torch.``, refused unless the format knows it."""
    name = str(dtype).removeprefix("torch.")
    if name not in DTYPE_SIZES:
        raise ValueError(f"dtype {name} cannot be described (known: {', '.join(DTYPE_SIZES)})")
    return name


def from_rebuild_args(args: Sequence[Any], *, device_uuid: str | None, pid: int | None = None,
                      export_id: int | None = None, pid_ns: int | None = None) -> Descriptor:
    """The descriptor of torch's 15 ``rebuild_cuda_tensor`` arguments (what ``reduce_tensor`` returns beside the
    function): tensor class, shape, strides, tensor offset, storage class, dtype, device, handle, storage size, storage
    offset, requires_grad, ref-counter handle, ref-counter offset, event handle, event_sync_required."""
    if len(args) != 15:
        raise ValueError(f"rebuild_cuda_tensor takes 15 arguments, got {len(args)}")
    (_cls, shape, strides, offset, _storage_cls, dtype, device, handle, storage_bytes, storage_offset, _grad,
     ref_file, ref_offset, event_handle, event_sync) = args
    if isinstance(ref_file, (bytes, bytearray)):
        ref_file = bytes(ref_file).decode("utf-8")
    if handle is None:  # an empty storage: torch sends no handle, no counter, no event (and ref offset 0)
        ref_file = ref_offset = None
    share = TorchShare(None if handle is None else bytes(handle), int(storage_bytes), int(storage_offset),
                       ref_file, None if ref_offset is None else int(ref_offset), int(device))
    event = Event(bytes(event_handle), True) if event_sync and event_handle is not None else None
    return Descriptor(
        kind="torch", device_uuid=None if device_uuid is None else normalize_uuid(device_uuid),
        bytes=int(storage_bytes),
        exporter=Exporter(os.getpid() if pid is None else pid, pid_namespace() if pid_ns is None else pid_ns,
                          next_export_id() if export_id is None else export_id),
        torch=share, tensor=Tensor(dtype_name(dtype), tuple(int(s) for s in shape),
                                   tuple(int(s) for s in strides), int(offset)),
        event=event)


def device_uuid_of(index: int) -> str:
    """The UUID of torch's device ``index`` (torch prints it without the ``GPU-`` prefix)."""
    torch = require("torch")
    uuid = torch.cuda.get_device_properties(index).uuid
    raw = getattr(uuid, "bytes", None)
    return normalize_uuid(bytes(raw)[:16] if raw is not None else str(uuid))


def share(tensor: Any, *, export_id: int | None = None) -> Descriptor:
    """The descriptor of a CUDA tensor for a reader in another process (Java or Python).

    Every call is a new share with its own slot in torch's reference-counter file: the reader releases it once,
    and the producer's caching allocator keeps the block (after the tensor is freed) until it has been released and
    ``torch.cuda.ipc_collect()`` runs. The producer must not modify the tensor before the reader has waited on the
    event (torch records it on the current stream at share time).
    """
    torch = require("torch")
    reductions = require("torch.multiprocessing.reductions")

    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"share() takes a torch.Tensor, got {type(tensor).__name__}")
    if not tensor.is_cuda:
        raise ValueError(f"share() takes a CUDA tensor, got one on {tensor.device}")
    if tensor.layout != torch.strided or tensor.is_nested:
        raise ValueError(f"share() takes a strided dense tensor, got layout {tensor.layout}")
    dtype_name(tensor.dtype)
    rebuild, args = reductions.reduce_tensor(tensor.detach())  # detach: a non-leaf that requires grad shares its data too
    if rebuild is not reductions.rebuild_cuda_tensor:
        raise ValueError(f"torch shared this tensor through {getattr(rebuild, '__name__', rebuild)}, not as CUDA memory")
    return from_rebuild_args(args, device_uuid=device_uuid_of(int(args[6])), export_id=export_id)


def chunk_fds(d: Descriptor) -> list[int]:
    """The producer's own fds of a torch share's expandable-segment chunks (an ``'e'`` handle of POSIX fds), in the
    handle's order; none for any other share. They are the fds a reader would take with ``pidfd_getfd``."""
    if d.kind != "torch" or d.torch is None or d.torch.handle is None:
        return []
    h = torch_handle.parse(d.torch.handle)
    return list(h.fds) if h.type == "e" else []


def send_share(sock: socket.socket, shared: Any) -> Descriptor:
    """Sends a share of this process over the descriptor socket (a client of :class:`cudaipc4j.fdsocket.Server`, or
    :func:`cudaipc4j.fdsocket.connect`'s socket): the descriptor's JSON with its chunks' fds attached (SCM_RIGHTS),
    so that the reader takes them from the socket instead of ``pidfd_getfd``, which needs ptrace rights over this
    process. ``shared`` is a CUDA tensor (shared here, as :func:`share` does) or a torch descriptor of this process.
    The producer keeps the tensor (and so its fds) until the reader has opened it, as for any share."""
    d = shared if isinstance(shared, Descriptor) else share(shared)
    if d.kind != "torch" or d.exporter.pid != os.getpid():
        raise ValueError(f"send_share() sends a torch share of this process (pid {os.getpid()}), got a {d.kind}"
                         f" descriptor of pid {d.exporter.pid}")
    fdsocket.send(sock, to_json(d).encode("ascii"), chunk_fds(d))
    return d
