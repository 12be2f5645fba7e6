"""The device a descriptor names, found by its UUID among this process's visible devices, never by ordinal:
``CUDA_VISIBLE_DEVICES`` may differ between the exporter and the reader."""
from __future__ import annotations

import ctypes
from collections.abc import Iterable

from .descriptor import normalize_uuid
from .errors import Error, require


class DeviceNotFound(Error, LookupError):
    """The descriptor's GPU is not visible to this process."""


def resolve(uuid: str, visible: Iterable[tuple[int, str]]) -> int:
    """The ordinal of the device with ``uuid`` among ``visible`` ((ordinal, uuid) pairs, as this process sees them)."""
    wanted = normalize_uuid(uuid)
    table = [(ordinal, normalize_uuid(u)) for ordinal, u in visible]
    for ordinal, u in table:
        if u == wanted:
            return ordinal
    seen = ", ".join(f"{u} ({o})" for o, u in table) or "none"
    raise DeviceNotFound(f"device {wanted} is not visible to this process (visible: {seen}); check"
                         f" CUDA_VISIBLE_DEVICES and that both processes run on the same machine")


def visible_devices() -> list[tuple[int, str]]:
    """(ordinal, UUID) of every device the CUDA driver shows this process."""
    from ._cuda import check
    cu = require("cuda.bindings.driver")
    check(cu.cuInit(0), "cuInit")
    count = check(cu.cuDeviceGetCount(), "cuDeviceGetCount")
    out = []
    for i in range(count):
        dev = check(cu.cuDeviceGet(i), "cuDeviceGet")
        get_uuid = getattr(cu, "cuDeviceGetUuid_v2", None) or cu.cuDeviceGetUuid
        uuid = check(get_uuid(dev), "cuDeviceGetUuid")
        # the struct's raw 16 bytes: some cuda.bindings releases cut CUuuid.bytes at the first zero byte
        out.append((i, normalize_uuid(ctypes.string_at(uuid.getPtr(), 16))))
    return out


def ordinal_of(uuid: str) -> int:
    """The ordinal of the visible device with ``uuid``."""
    return resolve(uuid, visible_devices())
