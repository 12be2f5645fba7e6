#!/usr/bin/env python3
"""A torch producer for the Java reader's GPU tests: shares a few CUDA tensors through torch's own sharing
(reduce_tensor, as multiprocessing and the RL frameworks do), prints one JSON line per share (the fields of
rebuild_cuda_tensor, named by torch_share_fields.py), then "shared". On the line
"done" it prints the slots of its shares as it reads them in its counter files ({"slots": {...}}), frees the
tensors, runs torch.cuda.ipc_collect() and prints {"allocated_start": n, "allocated_after": n}.

    python3 torch_producer.py            # the caching allocator's segments ('c')
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 torch_producer.py expandable
                                         # expandable segments ('e'): small tensors in one 2 MiB chunk, large ones
                                         # in 20 MiB chunks, one spanning several
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 torch_producer.py one
                                         # a single small tensor
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 torch_producer.py address-space SEQUENTIAL HELD
                                         # the readers' address-space tests: HELD bf16 tensors of 1 MiB (two to a
                                         # 2 MiB chunk), shared SEQUENTIAL times in turn ("seq-<i>", for opens
                                         # closed one after another), then once each ("held-<i>", held at once)
"""
import json
import mmap
import os
import struct
import sys

os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False")
import torch  # noqa: E402

from torch_share_fields import describe  # noqa: E402  (beside this file)


def slot_value(counter, slot):
    with open("/dev/shm" + counter, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return struct.unpack_from("<q", m, 64 + 8 * slot)[0]


def legacy_cases(dev):
    big = torch.arange(1 << 20, dtype=torch.float32, device=dev)
    a = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    b = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    m = torch.randn(1024 * 1024, device=dev)
    return [
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


def expandable_cases(dev):
    # Small tensors (< 1 MiB) share the small pool's first 2 MiB chunk; large ones live in 20 MiB chunks, and the
    # 48 MiB tensor spans at least three of them.
    a = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    b = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    m = torch.randn(1024 * 1024, device=dev)
    spanning = torch.randn(12 << 20, device=dev)
    return [
        ("small-bf16-first", a),
        ("small-bf16-first-again", a),  # a second share of a storage the reader has open
        ("small-bf16-second", b),
        ("small-int64", torch.arange(-50, 50, dtype=torch.int64, device=dev)),
        ("small-int32-strided", torch.arange(600, dtype=torch.int32, device=dev).view(20, 30)[2:7, 1::3]),
        ("small-bool", torch.rand(333, device=dev) > 0.5),
        ("small-float8_e5m2", torch.randn(1000, device=dev).to(torch.float8_e5m2)),
        ("small-float16-stride0", torch.randn(4, device=dev).half().expand(3, 4)),
        ("small-complex64", torch.randn(40, dtype=torch.complex64, device=dev)),
        ("large-float32-view-offset", m.view(1024, 1024)[5:9, 3:7]),
        ("large-float64", torch.randn(3 << 17, dtype=torch.float64, device=dev)),
        ("large-float32-spanning-chunks", spanning),
        ("empty", torch.empty(0, 5, device=dev)),
    ]


def one_case(dev):
    return [("small-float32", torch.randn(256, device=dev))]


def address_space_cases(dev, sequential, held):
    tensors = [torch.randn(1 << 19, dtype=torch.bfloat16, device=dev) for _ in range(held)]
    return ([(f"seq-{i}", tensors[i % held]) for i in range(sequential)]
            + [(f"held-{i}", t) for i, t in enumerate(tensors)])


def main():
    torch.manual_seed(11)
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    start = torch.cuda.memory_allocated()
    mode = sys.argv[1] if len(sys.argv) > 1 else "legacy"
    if mode == "address-space":
        cases = address_space_cases(dev, int(sys.argv[2]), int(sys.argv[3]))
    else:
        cases = {"legacy": legacy_cases, "expandable": expandable_cases, "one": one_case}[mode](dev)
    torch.cuda.synchronize()
    shares = []
    for name, t in cases:
        d = describe(name, t)
        shares.append(d)
        print(json.dumps(d), flush=True)
    print("shared", flush=True)
    sys.stdin.readline()
    slots = {d["case"]: slot_value(d["ref_counter_file"], d["ref_counter_offset"])
             for d in shares if d["ref_counter_file"]}
    print(json.dumps({"slots": slots}), flush=True)
    del cases, t
    torch.cuda.synchronize()
    torch.cuda.ipc_collect()
    print(json.dumps({"allocated_start": start, "allocated_after": torch.cuda.memory_allocated()}), flush=True)


if __name__ == "__main__":
    main()
