"""``open(descriptor)``: a torch tensor (or a CuPy array) over memory another process exported.

What Java exports - ``legacy`` (cuIpcOpenMemHandle), ``vmm`` (an fd or a fabric handle, mapped through the VMM API)
and ``pool`` (the pool's fd and the allocation's pointer export) - and torch's own shares (``torch``, opened by torch's
own reader so that its reference counting applies; an expandable segment's chunks of POSIX fds mapped here, their fds
given or taken, its slot given back once after the unmap). The memory stays mapped while the tensor (or any view of it)
lives: the tensor's storage holds the mapping, and when the storage dies the mapping is synchronized, unmapped and
the exporter's lease released (in that order), through ``weakref.finalize``.

File descriptors: given by the caller (received with the descriptor over the descriptor socket, see
:mod:`cudaipc4j.fdsocket`) they are owned by ``open`` from then on and closed once imported, also on failure; or,
without them, taken from the exporter with ``pidfd_getfd`` by the numbers in ``fd_numbers``.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import weakref
from collections.abc import Sequence
from typing import Any, Literal

from . import devices, pidfd, torch_counters, torch_handle
from ._cuda import check
from .descriptor import Descriptor, from_json
from .errors import Error, require

_lock = threading.RLock()
#: Legacy handles open once per process and context: (ordinal, handle bytes) -> [base pointer, users]
_legacy: dict[tuple[int, bytes], list[int]] = {}
#: Imported pools, once per exporter pool: (ordinal, exporter pid, pid namespace, pool id) -> [pool, users]
_pools: dict[tuple[int, int, int, int], list[Any]] = {}
# (pool key, the pointer's export data) -> [imported pointer, opens using it]
_pool_pointers: dict[tuple[tuple[int, int, int, int], bytes], list[Any]] = {}
#: Holder tables by name, mapped while a mapping holds an export of theirs: name -> [table, holds]
_tables: dict[str, list[Any]] = {}
#: Errors of releases that ran from a finalizer (which cannot raise); the next open raises the first one
_cleanup_errors: list[BaseException] = []


class ReleaseError(Error, RuntimeError):
    """A release of an earlier tensor that failed in its finalizer, which cannot raise: the next open raises it."""


def _raw(struct_type: Any, data: bytes) -> Any:
    value = struct_type()
    ctypes.memmove(value.getPtr(), data, len(data))  # cuda.bindings' documented way to set a struct's raw bytes
    return value


def _close_fds(fds: list[int]) -> None:
    """Closes each fd of ``fds`` and empties the list, so that whoever else holds the list cannot close them again
    (by then the number may name another file of this process)."""
    while fds:
        fd = fds.pop()
        try:
            os.close(fd)
        except OSError:
            pass


def open(descriptor: Descriptor | str | bytes, *, fds: Sequence[int] | None = None,  # noqa: A001 - the verb
         device: int | None = None, stream: Any = None, like: Literal["torch", "cupy"] = "torch") -> Any:
    """A tensor over the memory ``descriptor`` names.

    :param fds: the descriptor's fds (now owned by this call); None takes them with pidfd_getfd
    :param device: the device ordinal, for a descriptor without a device UUID (torch's bare tuple); else the
        device is found by UUID among this process's visible devices
    :param stream: a torch stream (or a CUstream handle) that waits on the descriptor's event; the current one
        by default
    :param like: ``"torch"`` (a torch.Tensor) or ``"cupy"`` (a cupy.ndarray; DLPack-capable)
    """
    owned = list(fds) if fds is not None else []
    d = None
    try:
        if _cleanup_errors:  # before the descriptor is read: a share refused for this stays a share to retry
            error, more = _cleanup_errors[0], len(_cleanup_errors) - 1
            _cleanup_errors.clear()
            raise ReleaseError(f"an earlier release failed: {error}"
                               + (f" (and {more} more of its steps)" if more else "")) from error
        d = descriptor if isinstance(descriptor, Descriptor) else from_json(descriptor)
        if like not in ("torch", "cupy"):
            raise ValueError(f"like must be 'torch' or 'cupy', got {like!r}")
        if d.device_uuid is not None:
            ordinal = devices.ordinal_of(d.device_uuid)
        elif device is not None:
            ordinal = int(device)
        else:
            raise ValueError("the descriptor names no device (a bare torch share): pass device=<this process's"
                             " ordinal of the producer's GPU>")
        if d.kind == "torch" and _chunk_fds(d):
            return _open_torch_chunks(d, ordinal, owned, fds is not None, stream, like)
        if d.kind == "torch":
            if owned:
                raise ValueError(f"a torch share of {_describe_handle(d)} travels without fds, {len(owned)} given")
            dtype, size = _wait_before_torch(d, ordinal, stream)
        else:
            return _open_mapping(d, ordinal, owned, fds is not None, stream, like)
    except BaseException:
        if d is not None and d.kind == "torch":
            _give_back_torch_slot(d)  # torch's reader never took the share
        raise
    finally:
        _close_fds(owned)
    return _rebuild_torch(d, ordinal, dtype, size, like)  # torch's reader owns the share's slot from here


def _open_mapping(d: Descriptor, ordinal: int, owned: list[int], fds_given: bool, stream: Any, like: str) -> Any:
    """What Java exported (legacy, VMM, pool), mapped and wrapped. The fds in ``owned`` (given by the caller, or
    taken here with pidfd_getfd) are closed by the mapping, which empties the list; the caller closes what is left."""
    if d.kind in ("vmm", "pool") and d.handle_type == "posix_fd" and not fds_given:
        if d.fd_numbers is None:
            raise ValueError(f"a {d.kind} descriptor with posix_fd needs its fds: pass fds= (received over the"
                             f" descriptor socket) or a descriptor with fd_numbers for pidfd_getfd")
        if d.exporter.pid_namespace not in (0, pidfd.pid_namespace()):
            raise pidfd.FdAccessError(0, f"pidfd_getfd: the exporter (pid {d.exporter.pid}) runs in another PID"
                                         f" namespace; receive its fds over the descriptor socket instead")
        owned.extend(pidfd.take_fds(d.exporter.pid, d.fd_numbers))
    if len(owned) != (d.fds or 0):
        raise ValueError(f"the descriptor says {d.fds or 0} fd(s), {len(owned)} given")
    mapping = _Mapping(d, ordinal, owned)
    try:
        mapping.wait_event(stream, like)
        return mapping.wrap(like)
    except BaseException:
        mapping.release()
        raise


def _chunk_fds(d: Descriptor) -> tuple[int, ...]:
    """The producer's fd numbers of a torch share's expandable-segment chunks ('e', POSIX fds); none otherwise."""
    if d.torch is None or d.torch.handle is None:
        return ()
    h = torch_handle.parse(d.torch.handle)
    return h.fds if h.type == "e" else ()


def _describe_handle(d: Descriptor) -> str:
    return "an empty storage" if d.torch.handle is None else torch_handle.parse(d.torch.handle).describe()


def _open_torch_chunks(d: Descriptor, ordinal: int, owned: list[int], fds_given: bool, stream: Any,
                       like: str) -> Any:
    """A torch share of an expandable segment, mapped here as torch's ``ExpandableSegment::fromShared`` maps it:
    its chunks' fds given (received over the descriptor socket, :func:`cudaipc4j.sharing.send_share`) or taken from
    the producer with pidfd_getfd (ptrace rights over it); its slot held in this process's lease book from now on and
    given back once, after the unmap."""
    s = d.torch
    numbers = _chunk_fds(d)
    if fds_given:
        if len(owned) != len(numbers):
            raise ValueError(f"the torch share's handle lists {len(numbers)} chunk fd(s), {len(owned)} given")
    else:
        producer = torch_handle.parse(s.handle).pid
        if d.exporter.pid_namespace not in (0, pidfd.pid_namespace()):
            raise pidfd.FdAccessError(0, f"pidfd_getfd: the producer (pid {producer}) runs in another PID"
                                         f" namespace; receive its fds over the descriptor socket instead")
        owned.extend(pidfd.take_fds(producer, numbers))
    from . import torch_leases
    leases = torch_leases.start()
    entry = leases.hold(s.ref_counter_file, s.ref_counter_offset)
    try:
        mapping = _Mapping(d, ordinal, owned)
        try:
            mapping.wait_event(stream, like)
            tensor = mapping.wrap(like)
        except BaseException:
            mapping.release()
            raise
    except BaseException:
        leases.drop(entry)  # the caller's failure path gives the slot back
        raise
    # given back after the unmap, as the exporter's hold of other kinds
    mapping._undo.append(("torch_slot", (leases, entry, s.ref_counter_file, s.ref_counter_offset)))
    return tensor


def _give_back_torch_slot(d: Descriptor) -> None:
    """A torch share that torch's reader never took (its open failed before): its slot goes back at once, as the
    Java reader gives back a share it cannot open, so that the producer can free the block."""
    s = d.torch
    if s is None or s.ref_counter_file is None or s.ref_counter_offset is None:
        return  # an empty storage's share holds no slot
    from . import torch_counters
    try:
        torch_counters.give_back(s.ref_counter_file, s.ref_counter_offset)
    except Exception:  # noqa: BLE001 - not torch's file, no libatomic: the open's own failure says more
        pass


#: Primary contexts retained once per device, for the process's life (as torch and CuPy keep theirs)
_contexts: dict[int, Any] = {}


def _primary_context(ordinal: int) -> Any:
    """The device's primary context (the one torch and CuPy use), retained once."""
    cu = require("cuda.bindings.driver")
    with _lock:
        ctx = _contexts.get(ordinal)
        if ctx is None:
            check(cu.cuInit(0), "cuInit")
            dev = check(cu.cuDeviceGet(ordinal), "cuDeviceGet")
            ctx = _contexts[ordinal] = check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    return ctx


def _push_context(ordinal: int) -> None:
    """Makes the device's primary context current on this thread until :func:`_pop_context`: the thread's own
    current context (torch's and CuPy's current device) is back afterwards, also on a finalizer's thread."""
    cu = require("cuda.bindings.driver")
    check(cu.cuCtxPushCurrent(_primary_context(ordinal)), "cuCtxPushCurrent")


def _pop_context() -> None:
    cu = require("cuda.bindings.driver")
    check(cu.cuCtxPopCurrent(), "cuCtxPopCurrent")


@contextlib.contextmanager
def _current(ordinal: int) -> Any:
    """The device's primary context current on this thread for the block (:func:`_push_context`)."""
    _push_context(ordinal)
    try:
        yield
    finally:
        _pop_context()


def _granularity(cu: Any, handle: Any) -> int:
    """The smallest mapping granularity of the allocation ``handle`` was imported from."""
    prop = check(cu.cuMemGetAllocationPropertiesFromHandle(handle), "cuMemGetAllocationPropertiesFromHandle")
    return check(cu.cuMemGetAllocationGranularity(
        prop, cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity")


class _Mapping:
    """One imported allocation, mapped in this process; :meth:`release` undoes everything once."""

    def __init__(self, d: Descriptor, ordinal: int, fds: list[int]) -> None:
        cu = require("cuda.bindings.driver")
        self.d = d
        self.ordinal = ordinal
        self.size = d.bytes
        self._undo: list[tuple[str, Any]] = []
        self.ptr = 0
        try:
            if d.bytes == 0:
                _close_fds(fds)
            else:
                with _current(ordinal):
                    if d.kind == "legacy":
                        self._open_legacy(cu)
                    elif d.kind == "vmm":
                        self._map_vmm(cu, fds)
                    elif d.kind == "torch":
                        self._map_chunks(cu, fds)
                    else:
                        self._import_pool(cu, fds)
            if d.exporter.holders is not None:
                self._undo.append(("hold", _hold(d.exporter.holders, d.exporter.export_id)))
        except BaseException:
            _close_fds(fds)
            self.release()
            raise
        undo = self._undo  # the finalizer must not hold self
        self._finalizer = weakref.finalize(self, _release, undo, ordinal)

    def _open_legacy(self, cu: Any) -> None:
        key = (self.ordinal, self.d.ipc_handle)
        with _lock:
            entry = _legacy.get(key)
            if entry is None:
                handle = _raw(cu.CUipcMemHandle, self.d.ipc_handle)
                flags = cu.CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
                base = int(check(cu.cuIpcOpenMemHandle(handle, flags), "cuIpcOpenMemHandle"))
                entry = _legacy[key] = [base, 0]
            entry[1] += 1
        self._undo.append(("legacy", key))
        self.ptr = entry[0]

    def _map_vmm(self, cu: Any, fds: list[int]) -> None:
        if self.d.handle_type == "posix_fd":
            kind = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
            try:
                # the POSIX handle is passed as the pointer argument's value, as in C: (void*)(uintptr_t)fd
                handle = check(cu.cuMemImportFromShareableHandle(fds[0], kind), "cuMemImportFromShareableHandle")
            finally:
                _close_fds(fds)  # the import holds its own reference
        else:
            kind = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_FABRIC
            fabric = ctypes.create_string_buffer(self.d.fabric_handle, 64)
            handle = check(cu.cuMemImportFromShareableHandle(ctypes.addressof(fabric), kind),
                           "cuMemImportFromShareableHandle")
        self._undo.append(("release", handle))
        granularity = _granularity(cu, handle)
        mapped = -(-self.size // granularity) * granularity
        ptr = check(cu.cuMemAddressReserve(mapped, granularity, 0, 0), "cuMemAddressReserve")
        self._undo.append(("address", (ptr, mapped)))
        check(cu.cuMemMap(ptr, mapped, 0, handle, 0), "cuMemMap")
        self._undo.append(("unmap", (ptr, mapped)))
        self._grant_read_write(cu, ptr, mapped)
        self.ptr = int(ptr)

    def _map_chunks(self, cu: Any, fds: list[int]) -> None:
        """An expandable segment's chunks imported (their fds closed) and mapped in order into one range."""
        h = torch_handle.parse(self.d.torch.handle)
        kind = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        handles = []
        try:
            for fd in fds:
                handles.append(check(cu.cuMemImportFromShareableHandle(fd, kind), "cuMemImportFromShareableHandle"))
                self._undo.append(("release", handles[-1]))
        finally:
            _close_fds(fds)  # each import holds its own reference
        chunk, total = h.segment_size, h.segment_size * len(handles)
        s = self.d.torch
        if s.storage_offset_bytes + s.storage_bytes > total:
            raise ValueError(f"the torch storage of {s.storage_bytes} bytes at offset {s.storage_offset_bytes} ends"
                             f" beyond its {len(handles)} chunk(s) of {chunk} bytes")
        granularity = _granularity(cu, handles[0])
        base = int(check(cu.cuMemAddressReserve(total, granularity, 0, 0), "cuMemAddressReserve"))
        self._undo.append(("address", (base, total)))
        for i, handle in enumerate(handles):
            at = base + i * chunk  # cuda.bindings takes an int where a CUdeviceptr goes
            check(cu.cuMemMap(at, chunk, 0, handle, 0), "cuMemMap")
            self._undo.append(("unmap", (at, chunk)))
        self._grant_read_write(cu, base, total)
        self.ptr = base + s.storage_offset_bytes

    def _grant_read_write(self, cu: Any, ptr: Any, size: int) -> None:
        """This device may read and write the mapped range ``size`` bytes from ``ptr``."""
        access = cu.CUmemAccessDesc()
        access.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        access.location.id = self.ordinal
        access.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        check(cu.cuMemSetAccess(ptr, size, [access], 1), "cuMemSetAccess")

    def _import_pool(self, cu: Any, fds: list[int]) -> None:
        d = self.d
        key = (self.ordinal, d.exporter.pid, d.exporter.pid_namespace, d.pool_id)
        with _lock:
            entry = _pools.get(key)
            if entry is None:
                if d.handle_type == "posix_fd":
                    kind = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
                    try:
                        pool = check(cu.cuMemPoolImportFromShareableHandle(fds[0], kind, 0),
                                     "cuMemPoolImportFromShareableHandle")
                    finally:
                        _close_fds(fds)
                else:
                    kind = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_FABRIC
                    fabric = ctypes.create_string_buffer(d.fabric_handle, 64)
                    pool = check(cu.cuMemPoolImportFromShareableHandle(ctypes.addressof(fabric), kind, 0),
                                 "cuMemPoolImportFromShareableHandle")
                entry = _pools[key] = [pool, 0]
            else:
                _close_fds(fds)  # the pool is imported already; this copy of its fd is not needed
            entry[1] += 1
        self._undo.append(("pool", key))
        # A pointer is imported once per process and freed once: a second import of the same export gives the same
        # address, and a second cuMemFree of it fails.
        pointer_key = (key, bytes(d.pointer_export))
        with _lock:
            imported = _pool_pointers.get(pointer_key)
            if imported is None:
                export = _raw(cu.CUmemPoolPtrExportData, d.pointer_export)
                ptr = check(cu.cuMemPoolImportPointer(entry[0], export), "cuMemPoolImportPointer")
                imported = _pool_pointers[pointer_key] = [ptr, 0]
            imported[1] += 1
        self._undo.append(("free", pointer_key))
        self.ptr = int(imported[0])

    def wait_event(self, stream: Any, like: str) -> None:
        e = self.d.event
        if e is None or not e.wait or self.size == 0:
            return
        _wait_ipc_event(e.ipc_handle, self.ordinal, _current_stream(self.ordinal, like) if stream is None else stream)

    def wrap(self, like: str) -> Any:
        t = self.d.tensor
        dtype = t.dtype if t is not None else "uint8"
        shape = t.shape if t is not None else (self.size,)
        strides = t.strides if t is not None else (1,)
        offset = t.offset if t is not None else 0
        if like == "cupy":
            return _cupy_array(self, dtype, shape, strides, offset)
        return _torch_tensor(self, dtype, shape, strides, offset)

    def release(self) -> None:
        finalizer = getattr(self, "_finalizer", None)
        if finalizer is not None:
            finalizer()
        else:
            _release(self._undo, self.ordinal)


def _hold(table_name: str, export_id: int) -> tuple[str, Any]:
    """Holds export ``export_id`` in the holder table ``table_name``, mapping the table for its first hold here."""
    from .holders import HolderTable
    with _lock:
        entry = _tables.get(table_name)
        if entry is None:
            entry = [HolderTable(table_name), 0]
        hold = entry[0].hold(export_id)
        _tables[table_name] = entry
        entry[1] += 1
    return table_name, hold


def _unhold(table_name: str, hold: Any) -> None:
    """Releases ``hold``; the table is unmapped with its last hold here."""
    with _lock:
        entry = _tables[table_name]
        try:
            hold.release()
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                del _tables[table_name]
                entry[0].close()


#: The undo steps that give a lease back, run after the mapping's own: the exporter may free once it sees them
_LEASES = ("hold", "torch_slot")


def _release(undo: list[tuple[str, Any]], ordinal: int) -> None:
    """Undoes a mapping, last step first, after the device finished its work with it; records failures."""
    if not undo:
        return
    try:
        cu = require("cuda.bindings.driver")
    except ImportError:
        cu = None
    # the mapping's steps last first, and the lease only after them: the exporter may free once it sees the release
    steps = [s for s in reversed(undo) if s[0] not in _LEASES] + [s for s in undo if s[0] in _LEASES]
    undo.clear()
    pushed = False
    if cu is not None and any(kind not in _LEASES for kind, _ in steps):
        try:
            _push_context(ordinal)
            pushed = True
            check(cu.cuCtxSynchronize(), "cuCtxSynchronize")  # unmapping does not wait for kernels still reading
        except BaseException as e:  # noqa: BLE001 - a finalizer cannot raise
            _cleanup_errors.append(e)
    try:
        _undo_steps(cu, steps)
    finally:
        if pushed:
            try:
                _pop_context()
            except BaseException as e:  # noqa: BLE001 - a finalizer cannot raise
                _cleanup_errors.append(e)


def _undo_steps(cu: Any, steps: list[tuple[str, Any]]) -> None:
    for kind, value in steps:
        try:
            if kind == "hold":
                _unhold(*value)
            elif kind == "torch_slot":
                leases, entry, name, slot = value
                leases.drop(entry)  # before the give-back: a kill between leaks the slot, never gives it twice
                torch_counters.give_back(name, slot, leases.counter_directory)
            elif kind == "legacy":
                with _lock:
                    entry = _legacy[value]
                    entry[1] -= 1
                    if entry[1] == 0:
                        del _legacy[value]
                        check(cu.cuIpcCloseMemHandle(entry[0]), "cuIpcCloseMemHandle")
            elif kind == "unmap":
                check(cu.cuMemUnmap(*value), "cuMemUnmap")
            elif kind == "address":
                check(cu.cuMemAddressFree(*value), "cuMemAddressFree")
            elif kind == "release":
                check(cu.cuMemRelease(value), "cuMemRelease")
            elif kind == "free":
                with _lock:
                    imported = _pool_pointers[value]
                    imported[1] -= 1
                    if imported[1] == 0:
                        del _pool_pointers[value]
                        check(cu.cuMemFree(imported[0]), "cuMemFree")  # imported pointers go before their pool
            elif kind == "pool":
                with _lock:
                    entry = _pools[value]
                    entry[1] -= 1
                    if entry[1] == 0:
                        del _pools[value]
                        check(cu.cuMemPoolDestroy(entry[0]), "cuMemPoolDestroy")
        except BaseException as e:  # noqa: BLE001 - a finalizer cannot raise; the next open reports it
            _cleanup_errors.append(e)


def _wait_ipc_event(handle: bytes, ordinal: int, stream: Any) -> None:
    cu = require("cuda.bindings.driver")
    with _current(ordinal):
        event = check(cu.cuIpcOpenEventHandle(_raw(cu.CUipcEventHandle, handle)), "cuIpcOpenEventHandle")
        try:
            raw = getattr(stream, "cuda_stream", stream)  # a torch stream, or a CUstream handle
            check(cu.cuStreamWaitEvent(cu.CUstream(int(raw)) if not isinstance(raw, cu.CUstream) else raw, event, 0),
                  "cuStreamWaitEvent")
        finally:
            check(cu.cuEventDestroy(event), "cuEventDestroy")  # the wait is enqueued; destroying is deferred by CUDA


def _current_stream(ordinal: int, like: str) -> Any:
    """The stream the caller's library works on now: torch's current stream of the device, or CuPy's current
    stream (CuPy's is per thread and device; the device is current while it is asked); the legacy default stream
    when that library is absent."""
    if like == "cupy":
        try:
            cupy = require("cupy")
        except ImportError:
            return 0
        with cupy.cuda.Device(ordinal):
            return cupy.cuda.get_current_stream().ptr
    try:
        torch = require("torch")
    except ImportError:
        return 0
    return torch.cuda.current_stream(ordinal)


class _ArrayInterface:
    """``__cuda_array_interface__`` of a mapping's bytes: torch.as_tensor keeps this object (and so the mapping)
    alive for as long as any tensor uses the storage."""

    def __init__(self, mapping: _Mapping, nbytes: int) -> None:
        self.mapping = mapping
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (mapping.ptr, False),
                                         "version": 3, "strides": None, "stream": None}


def _torch_tensor(mapping: _Mapping, dtype: str, shape: tuple[int, ...], strides: tuple[int, ...],
                  offset: int) -> Any:
    torch = require("torch")
    torch_dtype = getattr(torch, dtype)
    device = torch.device("cuda", mapping.ordinal)
    if mapping.size == 0:
        mapping.release()
        return torch.empty(shape, dtype=torch_dtype, device=device).as_strided(shape, strides, 0)
    itemsize = torch.empty((), dtype=torch_dtype).element_size()
    usable = mapping.size // itemsize * itemsize
    raw = torch.as_tensor(_ArrayInterface(mapping, mapping.size), device=device)
    # the bytes seen as elements, then the view: as_strided checks it stays inside the storage
    return raw[:usable].view(torch_dtype).as_strided(shape, strides, offset)


def _cupy_array(mapping: _Mapping, dtype: str, shape: tuple[int, ...], strides: tuple[int, ...],
                offset: int) -> Any:
    cupy = require("cupy")
    try:
        np_dtype = cupy.dtype(dtype)
    except TypeError:
        mapping.release()
        raise ValueError(f"CuPy has no dtype {dtype}; open it with like='torch'") from None
    itemsize = np_dtype.itemsize
    if mapping.size == 0:
        mapping.release()
        return cupy.ndarray(shape, dtype=np_dtype)
    memory = cupy.cuda.UnownedMemory(mapping.ptr, mapping.size, mapping, mapping.ordinal)
    pointer = cupy.cuda.MemoryPointer(memory, offset * itemsize)
    return cupy.ndarray(shape, dtype=np_dtype, memptr=pointer, strides=tuple(s * itemsize for s in strides))


def _wait_before_torch(d: Descriptor, ordinal: int, stream: Any) -> tuple[Any, Any]:
    """All of a torch share's open before torch's reader takes it: torch and its reader imported, the device, dtype
    and shape checked, the producer's event waited on - for every share, also one whose storage is open already
    (torch skips that wait). Returns torch's dtype and size."""
    torch = require("torch")
    require("torch.multiprocessing.reductions")  # the reader, imported before the share is given to it
    t, s = d.tensor, d.torch
    if t is None:
        raise ValueError("a torch descriptor without its tensor's dtype and shape cannot be opened")
    dtype = getattr(torch, t.dtype, None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"this torch ({torch.__version__}) has no dtype {t.dtype}")
    count = torch.cuda.device_count()
    if not 0 <= ordinal < count:
        raise ValueError(f"device {ordinal} is not one of the {count} CUDA device(s) this torch sees")
    size = torch.Size(t.shape)
    event = d.event
    if event is not None and event.wait and s.handle is not None:
        _wait_ipc_event(event.ipc_handle, ordinal, torch.cuda.current_stream(ordinal) if stream is None else stream)
    return dtype, size


def _rebuild_torch(d: Descriptor, ordinal: int, dtype: Any, size: Any, like: str) -> Any:
    """A torch share opened by torch's own reader (rebuild_cuda_tensor): its cache, its reference counting."""
    torch = require("torch")
    reductions = require("torch.multiprocessing.reductions")
    s = d.torch
    leases = entry = None
    if s.handle is not None and s.ref_counter_file is not None:
        # held in the lease book before torch's reader takes the share: the watcher gives the slot back if this
        # process dies before torch's reader does
        from . import torch_leases
        leases = torch_leases.start()
        entry = leases.hold(s.ref_counter_file, s.ref_counter_offset or 0)
    try:
        tensor = _rebuild_with_torch(torch, reductions, d, ordinal, dtype, size)
    except BaseException:
        if leases is not None:
            leases.drop(entry)  # torch's reader had the share: it, not the watcher, gives it back
        raise
    if leases is not None:
        leases.track(entry, reductions.StorageWeakRef(tensor.untyped_storage()))
    if like == "cupy":
        return require("cupy").from_dlpack(tensor)
    return tensor


def _rebuild_with_torch(torch: Any, reductions: Any, d: Descriptor, ordinal: int, dtype: Any, size: Any) -> Any:
    t, s = d.tensor, d.torch
    with torch.cuda.device(ordinal):
        return reductions.rebuild_cuda_tensor(
            torch.Tensor, size, t.strides, t.offset, torch.storage.TypedStorage,
            dtype, ordinal, s.handle, s.storage_bytes, s.storage_offset_bytes, False,
            None if s.ref_counter_file is None else s.ref_counter_file.encode(), s.ref_counter_offset or 0,
            bytes(64), False)  # the event was waited on before, on every share
