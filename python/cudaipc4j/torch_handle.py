"""torch's CUDA storage handles: the second field of ``storage._share_cuda_()``, every format torch has written.

Layouts, from torch's source (c10/cuda/CUDACachingAllocator.cpp):

- torch <= 2.4: exactly 64 bytes, the raw ``cudaIpcMemHandle_t`` of the caching allocator's segment base.
- later: ``[version u8][type u8][payload]`` (``SHAREABLE_HANDLE_VERSION``, ``ShareableHandleType``), written by
  ``NativeCachingAllocator::shareIpcHandle``; version 1 (2.5/2.6), 2 (2.8 to 2.12), 3 (2.13 on).
  - ``'c'`` (``SHAREABLE_CUDA_MALLOC``): the 64-byte ``cudaIpcMemHandle_t`` of the segment base, in every version.
  - ``'e'`` (``SHAREABLE_CUDA_EXPANDABLE_SEGMENT``): ``ExpandableSegment::share`` writes ``ShareHeader``
    ``{pid_t pid; size_t segment_size; size_t num_handles;}`` (24 bytes on x86-64 and aarch64: 4 bytes of padding
    after the pid) then, per chunk, the producer's ``int`` fd (``CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR``) or a
    64-byte ``CUmemFabricHandle``; nothing on the wire says which before version 3, so the length tells (24 + 4n or
    24 + 64n; both at once only for n = 0, which torch never writes). Version 3 adds ``int handle_type`` at offset
    24 (0 unspecified, 1 POSIX fd, 2 fabric) and 4 bytes of tail padding: a 32-byte header.

A versioned handle is never exactly 64 bytes long (66 for 'c', 24 + 2 + 4n >= 30 for 'e').
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

RAW_SIZE = 64
MAX_VERSION = 3
TYPE_CUDA_MALLOC = 0x63  # 'c'
TYPE_EXPANDABLE = 0x65  # 'e'
FABRIC_HANDLE_SIZE = 64
_HEADER_V2 = struct.Struct("<i4xQQ")
_MAX_LONG = (1 << 63) - 1
_HEADER_V3 = struct.Struct("<i4xQQi4x")


@dataclass(frozen=True)
class TorchHandle:
    """A parsed handle. ``version`` 0 is the raw 64-byte handle; ``type`` is ``'c'`` or ``'e'``."""
    version: int
    type: str
    #: 'c' (and raw): the segment base's cudaIpcMemHandle_t
    ipc_handle: bytes | None = None
    #: 'e': the producer's pid, the chunk size, and one entry per chunk under the shared block
    pid: int | None = None
    segment_size: int | None = None
    handle_type: str | None = None  # 'e': "posix_fd" or "fabric"
    fds: tuple[int, ...] = ()
    fabric_handles: tuple[bytes, ...] = ()

    @property
    def num_handles(self) -> int:
        return len(self.fds) + len(self.fabric_handles)

    def describe(self) -> str:
        head = "raw (torch <= 2.4)" if self.version == 0 else f"version {self.version}"
        if self.type == "c":
            return f"torch handle, {head}, type 'c' (cudaMalloc segment)"
        chunks = ", ".join(str(fd) for fd in self.fds) if self.fds else f"{len(self.fabric_handles)} fabric handles"
        return (f"torch handle, {head}, type 'e' (expandable segment): pid {self.pid}, {self.num_handles} chunk(s)"
                f" of {self.segment_size} bytes, {self.handle_type}" + (f" fds {chunks}" if self.fds else ""))


def parse(handle: bytes | bytearray | memoryview) -> TorchHandle:
    """Parses torch's handle bytes; raises ValueError naming what is wrong, in the Java reader's words
    (``TorchHandle.parse``; interop-golden/invalid/ pins them for both sides)."""
    if not isinstance(handle, (bytes, bytearray, memoryview)):
        raise ValueError(f"a torch handle is bytes, got {type(handle).__name__}")
    data = bytes(handle)
    if not data:
        raise ValueError("torch handle is empty (an empty storage has no handle)")
    if len(data) == RAW_SIZE:
        return TorchHandle(0, "c", ipc_handle=data)
    if len(data) < 2:
        raise ValueError(f"torch handle too short: {len(data)} byte; a handle is 64 raw bytes or a version byte, a"
                         f" type byte and a payload")
    version, kind = data[0], data[1]
    if version == 0:
        head = " ".join(f"{b:02x}" for b in data[:8]) + (" ..." if len(data) > 8 else "")
        raise ValueError(f"torch handle has version 0, which torch never writes (raw handles are exactly 64 bytes;"
                         f" versioned ones start at 1); {len(data)} bytes: {head}")
    if version > MAX_VERSION:
        raise ValueError(f"torch handle has version {version}, newer than this reader knows (1 to {MAX_VERSION})")
    if kind == TYPE_CUDA_MALLOC:
        if len(data) != 2 + RAW_SIZE:
            raise ValueError(f"torch handle version {version} type 'c' must be {2 + RAW_SIZE} bytes (version, type,"
                             f" 64-byte cudaIpcMemHandle_t), got {len(data)}")
        return TorchHandle(version, "c", ipc_handle=data[2:])
    if kind == TYPE_EXPANDABLE:
        return _expandable(version, data)
    shown = f"'{chr(kind)}' " if 0x20 <= kind < 0x7f else ""
    raise ValueError(f"torch handle version {version} has an unknown type {shown}(0x{kind:02x}); torch writes 'c'"
                     f" (cudaMalloc) and 'e' (expandable segment)")


def _expandable(version: int, data: bytes) -> TorchHandle:
    header = _HEADER_V3 if version >= 3 else _HEADER_V2
    what = f"torch handle version {version} type 'e'"
    if len(data) < 2 + header.size:
        raise ValueError(f"{what} too short: {len(data)} bytes, its header alone is {2 + header.size}")
    if version >= 3:
        pid, segment_size, count, declared = header.unpack_from(data, 2)
    else:
        pid, segment_size, count = header.unpack_from(data, 2)
        declared = -1
    if pid <= 0:
        raise ValueError(f"{what} names producer pid {pid}")
    if not 0 < segment_size <= _MAX_LONG:  # a signed 64-bit size, as the Java reader keeps it
        raise ValueError(f"{what} has a bad segment size {segment_size}")
    payload = len(data) - 2 - header.size
    if not 0 < count <= payload // 4:
        raise ValueError(f"{what} announces {count} chunks but carries {payload} bytes of chunks")
    if segment_size * count > _MAX_LONG:
        raise ValueError(f"{what}: {count} chunks of {segment_size} bytes overflow a 64-bit size")
    if version >= 3 and declared != 0:
        if declared not in (1, 2):
            raise ValueError(f"{what} has an unknown handle_type {declared} (torch's are 0 unspecified, 1 POSIX fd,"
                             f" 2 fabric)")
        per_chunk = 4 if declared == 1 else FABRIC_HANDLE_SIZE
        if payload != count * per_chunk:
            raise ValueError(f"{what} with handle_type {declared} and {count} chunks needs {count * per_chunk} bytes"
                             f" of chunks, got {payload}")
        fabric = declared == 2
    elif payload == count * 4:
        fabric = False
    elif payload == count * FABRIC_HANDLE_SIZE and version >= 2:
        fabric = True
    else:
        other = f" nor {count * FABRIC_HANDLE_SIZE} (fabric handles)" if version >= 2 else ", version 1 has no fabric"
        raise ValueError(f"{what} announces {count} chunks but carries {payload} bytes of chunks: neither"
                         f" {count * 4} (file descriptors){other}")
    rest = data[2 + header.size:]
    if not fabric:
        fds = struct.unpack_from(f"<{count}i", rest)
        for i, fd in enumerate(fds):
            if fd < 0:
                raise ValueError(f"{what} chunk {i} names file descriptor {fd}")
        return TorchHandle(version, "e", pid=pid, segment_size=segment_size, handle_type="posix_fd", fds=tuple(fds))
    chunks = tuple(rest[i:i + FABRIC_HANDLE_SIZE] for i in range(0, len(rest), FABRIC_HANDLE_SIZE))
    return TorchHandle(version, "e", pid=pid, segment_size=segment_size, handle_type="fabric",
                       fabric_handles=chunks)


def build_c(ipc_handle: bytes, version: int = 2) -> bytes:
    """The bytes torch writes for a 'c' handle (version 0: the raw handle of torch <= 2.4)."""
    if len(ipc_handle) != RAW_SIZE:
        raise ValueError(f"a cudaIpcMemHandle_t is 64 bytes, got {len(ipc_handle)}")
    return bytes(ipc_handle) if version == 0 else bytes([version, TYPE_CUDA_MALLOC]) + bytes(ipc_handle)


def build_e(pid: int, segment_size: int, fds: list[int] | None = None, fabric: list[bytes] | None = None,
            version: int = 2) -> bytes:
    """The bytes torch writes for an 'e' handle, laid out as ``ExpandableSegment::share`` writes them."""
    chunks = fds if fds is not None else fabric or []
    head = bytes([version, TYPE_EXPANDABLE])
    if version >= 3:
        code = 1 if fds is not None else 2
        head += _HEADER_V3.pack(pid, segment_size, len(chunks), code)
    else:
        head += _HEADER_V2.pack(pid, segment_size, len(chunks))
    if fds is not None:
        return head + struct.pack(f"<{len(fds)}i", *fds)
    return head + b"".join(fabric or [])
