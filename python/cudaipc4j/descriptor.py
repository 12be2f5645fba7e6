"""The JSON descriptor, format 1.0: what one side hands the other to share one allocation (docs/interop-format.md).

A :class:`Descriptor` is checked when it is built, whether by hand or by :func:`from_json`, so every descriptor that
exists is one a reader of the format accepts. :func:`to_json` writes the documented compact form (fields in the
documented order, no whitespace, ASCII only) that the Java side writes too, byte for byte.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import json_text
from .errors import Error

FORMAT_MAJOR = 1
FORMAT_MINOR = 0
FORMAT = f"{FORMAT_MAJOR}.{FORMAT_MINOR}"

KINDS = ("legacy", "vmm", "pool", "torch")
HANDLE_TYPES = ("posix_fd", "fabric")

#: Bytes per element of every dtype name the format knows (torch's names without ``torch.``).
DTYPE_SIZES = {
    "bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint16": 2, "uint32": 4, "uint64": 8,
    "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "complex64": 8, "complex128": 16,
    "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1,
}

_MAX_LONG = (1 << 63) - 1  # the Java side keeps every integer in a long
_MAX_PID = (1 << 31) - 1
_UUID = re.compile(r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_VERSION = re.compile(r"(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")
#: The names a descriptor may give files (docs/interop-format.md, "Names"): what coord's ExportHolders and torch's
#: GetNewRefCountedSentData make, printable ASCII without '/' or '..' past the first character.
HOLDERS_NAME = re.compile(r"cudaipc4j-[1-9][0-9]{0,9}-[0-9a-f]{16}-holders")
HOLDERS_FORM = "a holder table's name (cudaipc4j-<pid>-<16 hex digits>-holders)"
REF_COUNTER_NAME = re.compile(r"/torch_[0-9]{1,10}_[0-9]{1,20}(_[0-9]{1,10})?")
REF_COUNTER_FORM = "a torch counter file's name (/torch_<pid>_<random>_<n>)"


class DescriptorError(Error, ValueError):
    """A descriptor that this reader refuses; the message is one line and names the field."""


def _fail(name: str, what: str, value: Any) -> DescriptorError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return DescriptorError(f"descriptor: field '{name}' must be {what}, got {shown}")


def _integer(name: str, value: Any, low: int = 0, high: int = _MAX_LONG) -> int:
    # bool is an int in Python; JSON's true is no integer
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(name, f"an integer from {low} to {high}", value)
    return value


def _boolean(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(name, "true or false", value)
    return value


def _file_name(name: str, value: Any, pattern: re.Pattern[str], what: str) -> None:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        got = json_text.shown(value) if isinstance(value, str) else repr(value)
        raise DescriptorError(f"descriptor: field '{name}' must be {what}, got {got}")


def _handle_bytes(name: str, value: Any, length: int | None) -> bytes:
    if not isinstance(value, (bytes, bytearray)) or (length is not None and len(value) != length):
        raise _fail(name, f"{length} bytes" if length is not None else "bytes", value)
    return bytes(value)


def _integers(name: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise _fail(name, "an array of integers", value)
    return tuple(_integer(f"{name}[{i}]", v) for i, v in enumerate(value))


def normalize_uuid(value: Any, name: str = "device_uuid") -> str:
    """``GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`` in lower case, from that form in any case or from 16 bytes."""
    if isinstance(value, (bytes, bytearray)) and len(value) == 16:
        h = bytes(value).hex()
        return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    if isinstance(value, str):
        low = value.lower()
        if not low.startswith("gpu-"):
            low = "gpu-" + low  # torch prints the bare UUID
        low = "GPU-" + low[4:]
        if _UUID.fullmatch(low):
            return low
    raise _fail(name, "a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", value)


@dataclass(frozen=True)
class Exporter:
    """The process that exported the memory: ``export_id`` names the export in its holder table."""
    pid: int
    pid_namespace: int
    export_id: int
    holders: str | None = None

    def __post_init__(self) -> None:
        _integer("exporter.pid", self.pid, 1, _MAX_PID)
        _integer("exporter.pid_namespace", self.pid_namespace)
        _integer("exporter.export_id", self.export_id)
        if self.holders is not None:
            _file_name("exporter.holders", self.holders, HOLDERS_NAME, HOLDERS_FORM)


@dataclass(frozen=True)
class Tensor:
    """The tensor that lives in the allocation: strides and offset in elements."""
    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0

    def __post_init__(self) -> None:
        if self.dtype not in DTYPE_SIZES:
            raise _fail("tensor.dtype", "one of " + ", ".join(DTYPE_SIZES), self.dtype)
        object.__setattr__(self, "shape", _integers("tensor.shape", self.shape))
        object.__setattr__(self, "strides", _integers("tensor.strides", self.strides))
        _integer("tensor.offset", self.offset)
        if len(self.strides) != len(self.shape):
            raise _fail("tensor.strides", f"{len(self.shape)} strides, one per dimension of the shape",
                        list(self.strides))

    @property
    def itemsize(self) -> int:
        return DTYPE_SIZES[self.dtype]

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def extent_bytes(self) -> int:
        """The bytes from the allocation's start that the view reaches (0 for an empty tensor)."""
        if self.numel == 0:
            return 0
        last = self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides))
        return (last + 1) * self.itemsize


@dataclass(frozen=True)
class Event:
    """An interprocess event; with ``wait`` the reader's stream waits on it before reading."""
    ipc_handle: bytes
    wait: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "ipc_handle", _handle_bytes("event.ipc_handle", self.ipc_handle, 64))
        _boolean("event.wait", self.wait)


@dataclass(frozen=True)
class TorchShare:
    """torch's own sharing fields (``storage._share_cuda_()``); ``handle`` is None for an empty storage."""
    handle: bytes | None
    storage_bytes: int
    storage_offset_bytes: int
    ref_counter_file: str | None
    ref_counter_offset: int | None
    device_index: int

    def __post_init__(self) -> None:
        from . import torch_handle
        if self.handle is not None:
            object.__setattr__(self, "handle", _handle_bytes("torch.handle", self.handle, None))
            try:
                torch_handle.parse(self.handle)
            except ValueError as e:
                raise DescriptorError(f"descriptor: field 'torch.handle': {e}") from None
        _integer("torch.storage_bytes", self.storage_bytes)
        _integer("torch.storage_offset_bytes", self.storage_offset_bytes)
        if self.ref_counter_file is not None:
            _file_name("torch.ref_counter_file", self.ref_counter_file, REF_COUNTER_NAME, REF_COUNTER_FORM)
        if self.ref_counter_offset is not None:
            _integer("torch.ref_counter_offset", self.ref_counter_offset)
        _integer("torch.device_index", self.device_index, 0, (1 << 31) - 1)
        if (self.ref_counter_file is None) != (self.ref_counter_offset is None):
            raise _fail("torch.ref_counter_offset", "null exactly when torch.ref_counter_file is null",
                        self.ref_counter_offset)
        if (self.handle is None) != (self.ref_counter_file is None):
            raise _fail("torch.ref_counter_file", "a counter file exactly when there is a handle",
                        self.ref_counter_file)


@dataclass(frozen=True)
class Descriptor:
    """One shared allocation, and optionally the tensor in it. Checked on construction (see docs/interop-format.md)."""
    kind: str
    bytes: int
    exporter: Exporter
    device_uuid: str | None = None
    ipc_handle: bytes | None = None
    handle_type: str | None = None
    fabric_handle: bytes | None = None
    fds: int | None = None
    fd_numbers: tuple[int, ...] | None = None
    pool_id: int | None = None
    pointer_export: bytes | None = None
    torch: TorchShare | None = None
    tensor: Tensor | None = None
    event: Event | None = None
    #: The minor version read (a reader keeps it for messages; writers always write this reader's own).
    minor: int = field(default=FORMAT_MINOR, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise _fail("kind", "one of " + ", ".join(KINDS), self.kind)
        _integer("bytes", self.bytes)
        if not isinstance(self.exporter, Exporter):
            raise _fail("exporter", "an object", self.exporter)
        if self.device_uuid is not None:
            object.__setattr__(self, "device_uuid", normalize_uuid(self.device_uuid))
        elif self.kind != "torch":
            raise DescriptorError(f"descriptor: field 'device_uuid' is missing (required for kind {self.kind})")
        allowed = {
            "legacy": {"ipc_handle"},
            "vmm": {"handle_type", "fabric_handle", "fds", "fd_numbers"},
            "pool": {"handle_type", "fabric_handle", "fds", "fd_numbers", "pool_id", "pointer_export"},
            "torch": {"torch"},
        }[self.kind]
        for name in ("ipc_handle", "handle_type", "fabric_handle", "fds", "fd_numbers", "pool_id",
                     "pointer_export", "torch"):
            if getattr(self, name) is not None and name not in allowed:
                raise DescriptorError(f"descriptor: field '{name}' does not belong to kind {self.kind}")
        required = {"legacy": ["ipc_handle"], "vmm": ["handle_type"], "pool": ["handle_type", "pool_id",
                    "pointer_export"], "torch": ["torch"]}[self.kind]
        for name in required:
            if getattr(self, name) is None:
                raise DescriptorError(f"descriptor: field '{name}' is missing (required for kind {self.kind})")
        if self.ipc_handle is not None:
            object.__setattr__(self, "ipc_handle", _handle_bytes("ipc_handle", self.ipc_handle, 64))
        if self.pointer_export is not None:
            object.__setattr__(self, "pointer_export", _handle_bytes("pointer_export", self.pointer_export, 64))
        if self.pool_id is not None:
            _integer("pool_id", self.pool_id)
        if self.handle_type is not None:
            if self.handle_type not in HANDLE_TYPES:
                raise _fail("handle_type", "posix_fd or fabric", self.handle_type)
            if self.handle_type == "fabric":
                if self.fabric_handle is None:
                    raise DescriptorError("descriptor: field 'fabric_handle' is missing (required for handle_type"
                                          " fabric)")
                object.__setattr__(self, "fabric_handle", _handle_bytes("fabric_handle", self.fabric_handle, 64))
                for name in ("fds", "fd_numbers"):
                    if getattr(self, name) is not None:
                        raise DescriptorError(f"descriptor: field '{name}' does not belong to handle_type"
                                              " fabric")
            else:
                if self.fabric_handle is not None:
                    raise DescriptorError("descriptor: field 'fabric_handle' does not belong to handle_type posix_fd")
                if self.fds is None:
                    raise DescriptorError("descriptor: field 'fds' is missing (required for handle_type posix_fd)")
                _integer("fds", self.fds, 1, 253)
                if self.fd_numbers is not None:
                    numbers = _integers("fd_numbers", self.fd_numbers)
                    for i, n in enumerate(numbers):
                        _integer(f"fd_numbers[{i}]", n, 0, _MAX_PID)  # an int fd, as the reader and Java keep it
                    if len(numbers) != self.fds:
                        raise _fail("fd_numbers", f"{self.fds} fd numbers (one per fd)", list(numbers))
                    object.__setattr__(self, "fd_numbers", numbers)
        if self.torch is not None:
            if not isinstance(self.torch, TorchShare):
                raise _fail("torch", "an object", self.torch)
            if self.bytes != self.torch.storage_bytes:
                raise _fail("bytes", f"torch.storage_bytes ({self.torch.storage_bytes})", self.bytes)
        if self.tensor is not None:
            if not isinstance(self.tensor, Tensor):
                raise _fail("tensor", "an object", self.tensor)
            if self.tensor.extent_bytes() > self.bytes:
                raise DescriptorError(f"descriptor: field 'tensor': the view reaches {self.tensor.extent_bytes()} bytes"
                                      f" into an allocation of {self.bytes}")
        if self.event is not None and not isinstance(self.event, Event):
            raise _fail("event", "an object", self.event)


def to_dict(d: Descriptor) -> dict[str, Any]:
    """The descriptor as JSON values, keys in the documented order, absent fields left out."""
    out: dict[str, Any] = {"cudaipc4j_descriptor": FORMAT, "kind": d.kind}
    if d.device_uuid is not None:
        out["device_uuid"] = d.device_uuid
    out["bytes"] = d.bytes
    exporter: dict[str, Any] = {"pid": d.exporter.pid, "pid_namespace": d.exporter.pid_namespace,
                                "export_id": d.exporter.export_id}
    if d.exporter.holders is not None:
        exporter["holders"] = d.exporter.holders
    out["exporter"] = exporter
    if d.ipc_handle is not None:
        out["ipc_handle"] = d.ipc_handle.hex()
    if d.handle_type is not None:
        out["handle_type"] = d.handle_type
    if d.fabric_handle is not None:
        out["fabric_handle"] = d.fabric_handle.hex()
    if d.fds is not None:
        out["fds"] = d.fds
    if d.fd_numbers is not None:
        out["fd_numbers"] = list(d.fd_numbers)
    if d.pool_id is not None:
        out["pool_id"] = d.pool_id
    if d.pointer_export is not None:
        out["pointer_export"] = d.pointer_export.hex()
    if d.torch is not None:
        t = d.torch
        out["torch"] = {"handle": None if t.handle is None else t.handle.hex(), "storage_bytes": t.storage_bytes,
                        "storage_offset_bytes": t.storage_offset_bytes, "ref_counter_file": t.ref_counter_file,
                        "ref_counter_offset": t.ref_counter_offset, "device_index": t.device_index}
    if d.tensor is not None:
        out["tensor"] = {"dtype": d.tensor.dtype, "shape": list(d.tensor.shape), "strides": list(d.tensor.strides),
                         "offset": d.tensor.offset}
    if d.event is not None:
        out["event"] = {"ipc_handle": d.event.ipc_handle.hex(), "wait": d.event.wait}
    return out


def to_json(d: Descriptor) -> str:
    """The compact documented form: one line, no whitespace, ASCII (no trailing newline)."""
    return json.dumps(to_dict(d), separators=(",", ":"), ensure_ascii=True, allow_nan=False)


# Reading: the same checks in the same order as the Java reader (DescriptorJsonReader), with the same one-line
# refusals; interop-golden/invalid/ pins them for both sides.

_KIND_FIELDS = ("ipc_handle", "handle_type", "fabric_handle", "fds", "fd_numbers", "pool_id", "pointer_export",
                "torch")
_BELONGS = {
    "legacy": {"ipc_handle"},
    "vmm": {"handle_type", "fabric_handle", "fds", "fd_numbers"},
    "pool": {"handle_type", "fabric_handle", "fds", "fd_numbers", "pool_id", "pointer_export"},
    "torch": {"torch"},
}
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_MIN_LONG = -(1 << 63)


def _refuse(message: str) -> DescriptorError:
    return DescriptorError("descriptor: " + message)


def _wrong_type(name: str, expected: str, value: Any) -> DescriptorError:
    if value is None:
        got = "null"
    elif isinstance(value, str):
        got = json_text.shown(value)
    elif isinstance(value, dict):
        got = "an object"
    elif isinstance(value, list):
        got = "an array"
    elif isinstance(value, bool):
        got = "true" if value else "false"
    else:
        got = json_text.cut(value.literal if isinstance(value, json_text.Number) else str(value))
    return _refuse(f"field '{name}' must be {expected}, got {got}")


def _req(obj: dict[str, Any], key: str, prefix: str) -> Any:
    if key not in obj:
        raise _refuse(f"field '{prefix}{key}' is missing")
    return obj[key]


def _str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise _wrong_type(name, "a string", value)
    return value


def _obj(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _wrong_type(name, "an object", value)
    return value


def _nonneg(value: Any, name: str) -> int:
    literal = value.literal if isinstance(value, json_text.Number) else None
    if isinstance(value, bool) or not (isinstance(value, int) or (literal and _INTEGER.fullmatch(literal))):
        raise _wrong_type(name, "an integer", value)
    if literal is not None or not _MIN_LONG <= value <= _MAX_LONG:
        raise _refuse(f"field '{name}' is out of range (0 to 2^63 - 1): {json_text.cut(literal or str(value))}")
    if value < 0:
        raise _refuse(f"field '{name}' must be >= 0, got {value}")
    return value


def _longs(value: Any, name: str) -> list[int]:
    if not isinstance(value, list):
        raise _wrong_type(name, "an array of integers", value)
    return [_nonneg(v, f"{name}[{i}]") for i, v in enumerate(value)]


def _hex_field(value: Any, name: str, length: int | None) -> bytes:
    s = _str(value, name)
    if len(s) % 2 or (length is not None and len(s) != 2 * length) or not s:
        what = f"{length} bytes ({2 * length} hex digits)" if length is not None else "an even number of hex digits"
        raise _refuse(f"field '{name}' must be {what}, got {len(s)} characters")
    if not _HEX.fullmatch(s):
        raise _refuse(f"field '{name}' is not hex: '{json_text.clip(s)}'")
    return bytes.fromhex(s)


def from_json(text: str | bytes) -> Descriptor:
    """Reads a descriptor; unknown fields are ignored, a newer major version and malformed input refused, in the
    Java reader's words."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise _refuse(f"not UTF-8 (at byte {e.start})") from None
    if not isinstance(text, str):
        raise _refuse("no text")
    return from_dict(json_text.parse_object(text, DescriptorError))


def from_dict(o: dict[str, Any]) -> Descriptor:
    """A descriptor from parsed JSON values (see :func:`from_json`)."""
    o = _obj(o, "(top level)")
    if "cudaipc4j_descriptor" not in o:
        raise DescriptorError("not a cudaipc4j descriptor: field 'cudaipc4j_descriptor' (the format version) is"
                              " missing")
    version = _str(o["cudaipc4j_descriptor"], "cudaipc4j_descriptor")
    if not _VERSION.fullmatch(version):
        raise _refuse(f"field 'cudaipc4j_descriptor' must be 'major.minor', got '{json_text.clip(version)}'")
    major, minor = (int(p) for p in version.split("."))
    if major > FORMAT_MAJOR:
        raise DescriptorError(f"descriptor format {version} is newer than this reader's {FORMAT_MAJOR}.x")
    if major < FORMAT_MAJOR:
        raise DescriptorError(f"descriptor format {version} is older than any this reader knows ({FORMAT_MAJOR}.x)")
    kind = _str(_req(o, "kind", ""), "kind")
    if kind not in KINDS:
        raise _refuse(f"field 'kind' is '{json_text.clip(kind)}', not one of legacy, vmm, pool, torch")
    for f in _KIND_FIELDS:
        if o.get(f) is not None and f not in _BELONGS[kind]:
            raise _refuse(f"field '{f}' does not belong to kind {kind}")
    device = None
    if o.get("device_uuid") is not None or kind != "torch":
        uuid = _str(_req(o, "device_uuid", ""), "device_uuid")
        if not _UUID.fullmatch("GPU-" + uuid[4:].lower()) or not uuid.startswith("GPU-"):
            raise _refuse("field 'device_uuid' must look like GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, got"
                          f" '{json_text.clip(uuid)}'")
        device = "GPU-" + uuid[4:].lower()
    size = _nonneg(_req(o, "bytes", ""), "bytes")
    ex = _obj(_req(o, "exporter", ""), "exporter")
    pid = _nonneg(_req(ex, "pid", "exporter."), "exporter.pid")
    if not 1 <= pid <= _MAX_PID:
        raise _refuse(f"field 'exporter.pid' must be 1 to {_MAX_PID}, got {pid}")
    holders = ex.get("holders")
    exporter = Exporter(pid, _nonneg(_req(ex, "pid_namespace", "exporter."), "exporter.pid_namespace"),
                        _nonneg(_req(ex, "export_id", "exporter."), "exporter.export_id"),
                        None if holders is None else _str(holders, "exporter.holders"))
    fields: dict[str, Any] = {}
    if kind == "legacy":
        fields["ipc_handle"] = _hex_field(_req(o, "ipc_handle", ""), "ipc_handle", 64)
    elif kind in ("vmm", "pool"):
        fields.update(_vmm_or_pool(o, kind))
    else:
        fields["torch"] = _torch_share(o, size)
    tensor = None if o.get("tensor") is None else _tensor(_obj(o["tensor"], "tensor"))
    if tensor is not None and tensor.extent_bytes() > size:
        raise _refuse(f"tensor {tensor.dtype}{_java_list(tensor.shape)} strides {_java_list(tensor.strides)} offset"
                      f" {tensor.offset} reaches {tensor.extent_bytes()} bytes, beyond the {size} described")
    event = None
    if o.get("event") is not None:
        e = _obj(o["event"], "event")
        handle = _hex_field(_req(e, "ipc_handle", "event."), "event.ipc_handle", 64)
        wait = _req(e, "wait", "event.")
        if not isinstance(wait, bool):
            raise _wrong_type("event.wait", "true or false", wait)
        event = Event(handle, wait)
    return Descriptor(kind=kind, bytes=size, exporter=exporter, device_uuid=device, tensor=tensor, event=event,
                      minor=minor, **fields)


def _java_list(values: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _vmm_or_pool(o: dict[str, Any], kind: str) -> dict[str, Any]:
    handle_type = _str(_req(o, "handle_type", ""), "handle_type")
    if handle_type not in HANDLE_TYPES:
        raise _refuse(f"field 'handle_type' is '{json_text.clip(handle_type)}', not posix_fd or fabric")
    out: dict[str, Any] = {"handle_type": handle_type}
    fds = 0
    if handle_type == "fabric":
        out["fabric_handle"] = _hex_field(_req(o, "fabric_handle", ""), "fabric_handle", 64)
        if o.get("fds") is not None or o.get("fd_numbers") is not None:
            raise _refuse("fields 'fds' and 'fd_numbers' do not belong to handle_type fabric")
    else:
        if o.get("fabric_handle") is not None:
            raise _refuse("field 'fabric_handle' does not belong to handle_type posix_fd")
        fds = _nonneg(_req(o, "fds", ""), "fds")
        if not 1 <= fds <= 253:
            raise _refuse(f"field 'fds' must be 1 to 253, got {fds}")
        out["fds"] = fds
    if o.get("fd_numbers") is not None:
        numbers = _longs(o["fd_numbers"], "fd_numbers")
        for i, n in enumerate(numbers):
            if n > _MAX_PID:
                raise _refuse(f"field 'fd_numbers[{i}]' must be 0 to {_MAX_PID}, got {n}")
        if len(numbers) != fds:
            raise _refuse(f"field 'fd_numbers' has {len(numbers)} entries for fds {fds}")
        out["fd_numbers"] = tuple(numbers)
    if kind == "pool":
        out["pool_id"] = _nonneg(_req(o, "pool_id", ""), "pool_id")
        out["pointer_export"] = _hex_field(_req(o, "pointer_export", ""), "pointer_export", 64)
    return out


def _torch_share(o: dict[str, Any], size: int) -> TorchShare:
    from . import torch_handle
    t = _obj(_req(o, "torch", ""), "torch")
    h, file, slot = (_req(t, k, "torch.") for k in ("handle", "ref_counter_file", "ref_counter_offset"))
    nulls = (h is None) + (file is None) + (slot is None)
    if nulls not in (0, 3):
        raise _refuse("fields 'torch.handle', 'torch.ref_counter_file' and 'torch.ref_counter_offset' must be all"
                      " null (an empty storage) or all present")
    handle = None if h is None else _hex_field(h, "torch.handle", None)
    if handle is not None:
        try:
            torch_handle.parse(handle)
        except ValueError as e:
            raise _refuse(f"field 'torch.handle': {e}") from None
    device_index = _nonneg(_req(t, "device_index", "torch."), "torch.device_index")
    if device_index > _MAX_PID:
        raise _refuse(f"field 'torch.device_index' is too large: {device_index}")
    storage = _nonneg(_req(t, "storage_bytes", "torch."), "torch.storage_bytes")
    offset = _nonneg(_req(t, "storage_offset_bytes", "torch."), "torch.storage_offset_bytes")
    share = TorchShare(handle, storage, offset, None if file is None else _str(file, "torch.ref_counter_file"),
                       None if slot is None else _nonneg(slot, "torch.ref_counter_offset"), device_index)
    if storage != size:
        raise _refuse(f"field 'bytes' is {size} but torch.storage_bytes is {storage}")
    return share


def _tensor(t: dict[str, Any]) -> Tensor:
    name = _str(_req(t, "dtype", "tensor."), "tensor.dtype")
    bare = name[6:] if name.startswith("torch.") else name
    if bare not in DTYPE_SIZES:
        raise _refuse(f"field 'tensor.dtype': unknown dtype '{json_text.clip(name)}' (known:"
                      f" {', '.join(DTYPE_SIZES)})")
    if name != bare:
        raise _refuse(f"field 'tensor.dtype' is '{json_text.clip(name)}'; write it without 'torch.'")
    shape = _longs(_req(t, "shape", "tensor."), "tensor.shape")
    strides = _longs(_req(t, "strides", "tensor."), "tensor.strides")
    if len(shape) != len(strides):
        raise _refuse(f"fields 'tensor.shape' ({len(shape)} dimensions) and 'tensor.strides' ({len(strides)}) differ"
                      " in length")
    offset = _nonneg(_req(t, "offset", "tensor."), "tensor.offset")
    tensor = Tensor(bare, tuple(shape), tuple(strides), offset)
    elements = 1
    for n in shape:
        elements *= n
    if elements > _MAX_LONG or (elements and tensor.extent_bytes() > _MAX_LONG):
        raise _refuse(f"tensor of shape {_java_list(tensor.shape)}, strides {_java_list(tensor.strides)} and offset"
                      f" {offset} reaches beyond 2^63 bytes")
    return tensor
