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
_SHM_NAME = re.compile(r"/[^/\x00]{1,254}")
_HOLDERS_NAME = re.compile(r"cudaipc4j-[A-Za-z0-9_-]{1,200}")


class DescriptorError(Error, ValueError):
    """A descriptor that this reader refuses; the message is one line and names the field."""


def _fail(name: str, what: str, value: Any) -> DescriptorError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return DescriptorError(f"descriptor field {name}: expected {what}, got {shown}")


def _integer(name: str, value: Any, low: int = 0, high: int = _MAX_LONG) -> int:
    # bool is an int in Python; JSON's true is no integer
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(name, f"an integer from {low} to {high}", value)
    return value


def _boolean(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(name, "true or false", value)
    return value


def _string(name: str, value: Any, pattern: re.Pattern[str], what: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise _fail(name, what, value)
    return value


def _handle_bytes(name: str, value: Any, length: int | None) -> bytes:
    if not isinstance(value, (bytes, bytearray)) or (length is not None and len(value) != length):
        raise _fail(name, f"{length} bytes" if length is not None else "bytes", value)
    return bytes(value)


def _hex(name: str, value: Any, length: int | None) -> bytes:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise _fail(name, "a hex string (two digits a byte)", value)
    raw = bytes.fromhex(value)
    if length is not None and len(raw) != length:
        raise _fail(name, f"{length} bytes in hex ({2 * length} digits)", value)
    return raw


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
            _string("exporter.holders", self.holders, _HOLDERS_NAME, "a holder table's name (cudaipc4j-...)")


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
                raise DescriptorError(f"descriptor field torch.handle: {e}") from None
        _integer("torch.storage_bytes", self.storage_bytes)
        _integer("torch.storage_offset_bytes", self.storage_offset_bytes)
        if self.ref_counter_file is not None:
            _string("torch.ref_counter_file", self.ref_counter_file, _SHM_NAME,
                    "a shared-memory name (/name, one component)")
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
            raise DescriptorError(f"descriptor field device_uuid: missing (required for kind {self.kind})")
        allowed = {
            "legacy": {"ipc_handle"},
            "vmm": {"handle_type", "fabric_handle", "fds", "fd_numbers"},
            "pool": {"handle_type", "fabric_handle", "fds", "fd_numbers", "pool_id", "pointer_export"},
            "torch": {"torch"},
        }[self.kind]
        for name in ("ipc_handle", "handle_type", "fabric_handle", "fds", "fd_numbers", "pool_id",
                     "pointer_export", "torch"):
            if getattr(self, name) is not None and name not in allowed:
                raise DescriptorError(f"descriptor field {name}: not allowed for kind {self.kind}")
        required = {"legacy": ["ipc_handle"], "vmm": ["handle_type"], "pool": ["handle_type", "pool_id",
                    "pointer_export"], "torch": ["torch"]}[self.kind]
        for name in required:
            if getattr(self, name) is None:
                raise DescriptorError(f"descriptor field {name}: missing (required for kind {self.kind})")
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
                    raise DescriptorError("descriptor field fabric_handle: missing (required for handle_type fabric)")
                object.__setattr__(self, "fabric_handle", _handle_bytes("fabric_handle", self.fabric_handle, 64))
                for name in ("fds", "fd_numbers"):
                    if getattr(self, name) is not None:
                        raise DescriptorError(f"descriptor field {name}: not allowed for handle_type fabric")
            else:
                if self.fabric_handle is not None:
                    raise DescriptorError("descriptor field fabric_handle: not allowed for handle_type posix_fd")
                if self.fds is None:
                    raise DescriptorError("descriptor field fds: missing (required for handle_type posix_fd)")
                _integer("fds", self.fds, 1, 253)
                if self.fd_numbers is not None:
                    numbers = _integers("fd_numbers", self.fd_numbers)
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
                raise DescriptorError(f"descriptor field tensor: the view reaches {self.tensor.extent_bytes()} bytes"
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


class _Duplicated(dict):
    """An object whose key ``duplicate`` was given twice; refused with the key's whole path once parsing is done."""
    duplicate: str = ""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out and not isinstance(out, _Duplicated):
            out = _Duplicated(out)
            out.duplicate = k
        out[k] = v
    return out


def _refuse_duplicates(value: Any, path: str = "") -> None:
    """Refuses the first key given twice, named by its path (``exporter.pid``), as the Java reader names it."""
    if isinstance(value, dict):
        prefix = f"{path}." if path else ""
        if isinstance(value, _Duplicated):
            raise DescriptorError(f"descriptor field {prefix}{value.duplicate}: given twice")
        for k, v in value.items():
            _refuse_duplicates(v, prefix + k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _refuse_duplicates(v, f"{path}[{i}]")


class _Number:
    """A JSON number the format has no use for (a fraction, an exponent, NaN, Infinity, more than 20 digits),
    kept as written: a field that needs an integer refuses it by the field's name; an unknown field may hold it."""
    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __repr__(self) -> str:
        return self.literal


def _int(text: str) -> Any:
    # an integer of any field fits 64 bits; longer digit strings would also meet Python's own limit on int()
    return int(text) if len(text) <= 20 else _Number(text)


def _object(name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(name, "an object", value)
    return value


def _required(obj: dict[str, Any], prefix: str, key: str) -> Any:
    if key not in obj:
        raise DescriptorError(f"descriptor field {prefix}{key}: missing")
    return obj[key]


def from_json(text: str | bytes) -> Descriptor:
    """Reads a descriptor; unknown fields are ignored, a newer major version and malformed input refused."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise DescriptorError(f"descriptor: not UTF-8 ({e.reason} at byte {e.start})") from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_Number, parse_float=_Number,
                           parse_int=_int)
    except json.JSONDecodeError as e:
        raise DescriptorError(f"descriptor: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise DescriptorError("descriptor: nested too deeply") from None
    _refuse_duplicates(value)
    return from_dict(value)


def _json_uuid(value: Any) -> str:
    if not isinstance(value, str) or not value.startswith("GPU-"):
        raise _fail("device_uuid", "a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", value)
    return normalize_uuid(value)


def from_dict(value: Any) -> Descriptor:
    """A descriptor from parsed JSON values (see :func:`from_json`)."""
    obj = _object("(top level)", value)
    version = _required(obj, "", "cudaipc4j_descriptor")
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise _fail("cudaipc4j_descriptor", "a version major.minor such as \"1.0\"", version)
    major, minor = (int(p) for p in version.split("."))
    if major > FORMAT_MAJOR:
        raise DescriptorError(f"descriptor format {version} is newer than this reader's {FORMAT_MAJOR}.x")
    if major < FORMAT_MAJOR:
        raise DescriptorError(f"descriptor format {version} is older than any this reader knows ({FORMAT_MAJOR}.x)")

    def opt(key: str, convert: Any) -> Any:
        v = obj.get(key)
        return None if v is None else convert(v)

    ex = _object("exporter", _required(obj, "", "exporter"))
    exporter = Exporter(_required(ex, "exporter.", "pid"), _required(ex, "exporter.", "pid_namespace"),
                        _required(ex, "exporter.", "export_id"), ex.get("holders"))
    torch = None
    if obj.get("torch") is not None:
        t = _object("torch", obj["torch"])
        handle = _required(t, "torch.", "handle")
        torch = TorchShare(None if handle is None else _hex("torch.handle", handle, None),
                           _required(t, "torch.", "storage_bytes"), _required(t, "torch.", "storage_offset_bytes"),
                           _required(t, "torch.", "ref_counter_file"), _required(t, "torch.", "ref_counter_offset"),
                           _required(t, "torch.", "device_index"))
    tensor = None
    if obj.get("tensor") is not None:
        t = _object("tensor", obj["tensor"])
        tensor = Tensor(_required(t, "tensor.", "dtype"), _integers("tensor.shape", _required(t, "tensor.", "shape")),
                        _integers("tensor.strides", _required(t, "tensor.", "strides")),
                        _required(t, "tensor.", "offset"))
    event = None
    if obj.get("event") is not None:
        e = _object("event", obj["event"])
        event = Event(_hex("event.ipc_handle", _required(e, "event.", "ipc_handle"), 64),
                      _required(e, "event.", "wait"))
    return Descriptor(
        kind=_required(obj, "", "kind"),
        bytes=_required(obj, "", "bytes"),
        exporter=exporter,
        device_uuid=opt("device_uuid", _json_uuid),
        ipc_handle=opt("ipc_handle", lambda v: _hex("ipc_handle", v, 64)),
        handle_type=obj.get("handle_type"),
        fabric_handle=opt("fabric_handle", lambda v: _hex("fabric_handle", v, 64)),
        fds=obj.get("fds"),
        fd_numbers=opt("fd_numbers", lambda v: _integers("fd_numbers", v)),
        pool_id=obj.get("pool_id"),
        pointer_export=opt("pointer_export", lambda v: _hex("pointer_export", v, 64)),
        torch=torch, tensor=tensor, event=event, minor=minor)
