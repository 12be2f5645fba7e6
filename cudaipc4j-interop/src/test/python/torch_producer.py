#!/usr/bin/env python3
"""A torch producer for the Java reader's GPU tests: shares a few CUDA tensors through torch's own sharing
(reduce_tensor, as multiprocessing and the RL frameworks do), prints one JSON line per share (the fields of
rebuild_cuda_tensor, bytes in hex, and the sha256 of the tensor's contiguous bytes), then "shared". On the line
"done" it prints the slots of its shares as it reads them in its counter files ({"slots": {...}}), frees the
tensors, runs torch.cuda.ipc_collect() and prints {"allocated_start": n, "allocated_after": n}.

    python3 torch_producer.py            # the caching allocator's segments ('c')
"""
import hashlib
import json
import mmap
import os
import struct
import sys

os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False")
import torch  # noqa: E402
from torch.multiprocessing.reductions import reduce_tensor  # noqa: E402


def share(name, tensor):
    _, args = reduce_tensor(tensor)
    (_, shape, strides, offset, _, dtype, device, handle, storage_size, storage_offset, _, counter, slot,
     event, sync) = args
    data = tensor.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
    hexed = lambda b: None if b is None else bytes(b).hex()
    return {
        "case": name,
        "dtype": str(dtype).removeprefix("torch."),
        "shape": list(shape),
        "strides": list(strides),
        "offset": offset,
        "device_index": device,
        "device_uuid": "GPU-" + str(torch.cuda.get_device_properties(device).uuid),
        "handle": hexed(handle),
        "storage_bytes": storage_size,
        "storage_offset_bytes": storage_offset,
        "ref_counter_file": counter.decode() if isinstance(counter, bytes) else counter,
        "ref_counter_offset": slot,
        "event_handle": hexed(event),
        "event_sync_required": sync,
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def slot_value(counter, slot):
    with open("/dev/shm" + counter, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return struct.unpack_from("<q", m, 64 + 8 * slot)[0]


def main():
    torch.manual_seed(11)
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    start = torch.cuda.memory_allocated()
    big = torch.arange(1 << 20, dtype=torch.float32, device=dev)
    a = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    b = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    m = torch.randn(1024 * 1024, device=dev)
    cases = [
        ("float32-4mib", big),
        ("float32-4mib-again", big),  # a second share of a storage the reader has open
        ("bf16-first", a),
        ("bf16-second", b),
        ("float32-strided-view", m.view(1024, 1024)[:, 3:7]),
        ("float32-expand-stride0", torch.randn(4, device=dev).expand(3, 4)),
        ("bool", torch.rand(333, device=dev) > 0.5),
        ("float8_e4m3fn", torch.randn(1000, device=dev).to(torch.float8_e4m3fn)),
        ("empty", torch.empty(0, 5, device=dev)),
    ]
    torch.cuda.synchronize()
    shares = []
    for name, t in cases:
        d = share(name, t)
        shares.append(d)
        print(json.dumps(d), flush=True)
    print("shared", flush=True)
    sys.stdin.readline()
    slots = {d["case"]: slot_value(d["ref_counter_file"], d["ref_counter_offset"])
             for d in shares if d["ref_counter_file"]}
    print(json.dumps({"slots": slots}), flush=True)
    del cases, big, a, b, m, t
    torch.cuda.synchronize()
    torch.cuda.ipc_collect()
    print(json.dumps({"allocated_start": start, "allocated_after": torch.cuda.memory_allocated()}), flush=True)


if __name__ == "__main__":
    main()
