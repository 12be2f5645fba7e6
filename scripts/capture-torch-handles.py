#!/usr/bin/env python3
"""Writes what torch's own sharing produces for a few CUDA tensors as JSON fixtures (one file a case), so that the
handle parsers of both sides are tested on real bytes. Run on a machine with torch and a GPU:

    python3 scripts/capture-torch-handles.py OUT_DIR            # the caching allocator's segments ('c')
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 scripts/capture-torch-handles.py OUT_DIR   # ('e')

Each file holds the 15 arguments of torch.multiprocessing.reductions.rebuild_cuda_tensor, named, with bytes in hex,
and the sha256 of the tensor's contiguous bytes (cudaipc4j-interop/src/test/python/torch_share_fields.py).
"""
import json
import os
import sys
from pathlib import Path

import torch

# the fields are the GPU tests' own (one definition of torch's 15 arguments as JSON)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cudaipc4j-interop" / "src" / "test" / "python"))
from torch_share_fields import describe  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    expandable = "expandable_segments:True" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    prefix = "e-" if expandable else "c-"
    torch.manual_seed(7)
    dev = torch.device("cuda", 0)
    cases = []
    big = torch.arange(1 << 20, dtype=torch.float32, device=dev)                        # 4 MiB
    cases.append(("float32-4mib", big))
    a = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    b = torch.randn(1024, dtype=torch.bfloat16, device=dev)
    cases.append(("bf16-first", a))
    cases.append(("bf16-second", b))
    m = torch.randn(1024 * 1024, device=dev)
    cases.append(("float32-strided-view", m.view(1024, 1024)[:, 3:7]))
    cases.append(("float32-expand-stride0", torch.randn(4, device=dev).expand(3, 4)))
    cases.append(("uint8-20mib", torch.randint(0, 255, (20 << 20,), dtype=torch.uint8, device=dev)))
    cases.append(("float16-40mib", torch.randn(20 << 20, dtype=torch.float16, device=dev)))
    cases.append(("bool", torch.rand(333, device=dev) > 0.5))
    cases.append(("float8_e4m3fn", torch.randn(1000, device=dev).to(torch.float8_e4m3fn)))
    cases.append(("empty", torch.empty(0, 5, device=dev)))
    torch.cuda.synchronize()
    for name, t in cases:
        d = describe(name, t)
        with open(os.path.join(out, prefix + name + ".json"), "w") as f:
            json.dump(d, f, indent=1)
            f.write("\n")
        print(prefix + name, len(bytes.fromhex(d["handle"])) if d["handle"] else None, d["handle"][:40] if d["handle"] else None)


if __name__ == "__main__":
    main()
