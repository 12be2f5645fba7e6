"""torch's reference-counter files, as the Java side's ``TorchCounterFile`` reads them:
``/dev/shm/torch_<pid>_<random>_<n>`` (torch's ``GetNewRefCountedSentData``), a 64-byte header (the process count of torch's ``RefcountedMapAllocator``),
then ``CUDA_IPC_REF_COUNTER_FILE_SIZE`` (10000) 64-bit slots, one a share. The producer frees a block once every
slot of its shares is back at 0 (``torch.cuda.ipc_collect()``).

:func:`give_back` returns one share's slot (:func:`give_back_all` several of one file) without touching the header
(torch's own ``_release_ipc_counter`` maps the file through ``RefcountedMapAllocator``, which counts itself in and
out and unlinks a file it finds at 0).
"""
from __future__ import annotations

import ctypes
import os
import struct

from .descriptor import REF_COUNTER_NAME
from .holders import _SEQ_CST, _cas, map_existing

DIRECTORY = "/dev/shm"
HEADER = 64
SLOTS = 10000
FILE_BYTES = HEADER + 8 * SLOTS
_NAME = REF_COUNTER_NAME


def give_back(name: str, slot: int, directory: str | None = None) -> bool:
    """Gives ``slot`` of the counter file ``name`` (as torch names it: ``/torch_<pid>_<random>_<n>``) back once.

    :returns: True when it was decremented; False when the file is gone (the producer has exited) or the slot is
        at 0 already (given back before)
    :raises ValueError: for a name that is not torch's, a slot outside the file, or a file not laid out as torch's
    """
    return give_back_all(name, [slot], directory) == 1


def give_back_all(name: str, slots: list[int], directory: str | None = None) -> int:
    """Gives each of ``slots`` of the counter file ``name`` back once, mapping the file once for all of them.

    :returns: how many were decremented (a slot at 0 already is left alone; none when the file is gone)
    :raises ValueError: as :func:`give_back`, before any slot is touched
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"not a torch reference-counter name: {name!r} (torch's are /torch_<pid>_<random>_<n>)")
    for slot in slots:
        if not 0 <= slot < SLOTS:
            raise ValueError(f"slot {slot} is outside torch's reference-counter file (slots 0 to {SLOTS - 1})")
    path = os.path.join(DIRECTORY if directory is None else directory, name[1:])

    def size_of(st: os.stat_result) -> int:
        if st.st_size != FILE_BYTES:
            raise ValueError(f"not a torch reference-counter file: {path} has {st.st_size} bytes, torch's have"
                             f" {FILE_BYTES}")
        return FILE_BYTES

    try:
        m = map_existing(path, size_of)
    except FileNotFoundError:
        return 0
    anchor = ctypes.c_char.from_buffer(m)  # pins the mapping's address for the compare-and-set
    values = memoryview(m)[HEADER:].cast("q")
    try:
        base = ctypes.addressof(anchor) + HEADER
        cas = _cas()
        expected = ctypes.c_uint64()
        at = ctypes.addressof(expected)
        done = 0
        for slot in slots:
            while True:
                value = values[slot]
                if value <= 0:
                    break
                expected.value = value
                if cas(base + 8 * slot, at, value - 1, _SEQ_CST, _SEQ_CST):
                    done += 1
                    break
        return done
    finally:
        values.release()
        del anchor
        m.close()
