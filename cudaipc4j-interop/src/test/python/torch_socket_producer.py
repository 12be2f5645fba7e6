#!/usr/bin/env python3
"""A torch producer that no reader may ptrace, for TorchSocketWayGpuTest: it makes itself non-dumpable
(prctl(PR_SET_DUMPABLE, 0)), so pidfd_getfd of its fds is refused to any process without CAP_SYS_PTRACE, then
prints one share line of its first tensor (torch_share_fields.py's fields: for a plain reader, which must be
refused), one {"case", "sha256"} line per tensor, "serving <socket path>" and serves one reader: each tensor shared
anew and sent with its chunks' fds over the descriptor socket (cudaipc4j.sharing.send_share). On "done" it prints
the slots of every share ({"slots": {...}}), frees the tensors, runs torch.cuda.ipc_collect() and prints
{"allocated_start": n, "allocated_after": n}.

    python3 torch_socket_producer.py legacy
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 torch_socket_producer.py expandable
"""
import ctypes
import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False")
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))  # the cudaipc4j package of this checkout
import torch  # noqa: E402

from cudaipc4j import fdsocket, sharing  # noqa: E402
from torch_producer import expandable_cases, legacy_cases, slot_value  # noqa: E402  (beside this file)
from torch_share_fields import describe  # noqa: E402

PR_SET_DUMPABLE = 4


def main():
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        sys.exit(f"prctl(PR_SET_DUMPABLE, 0) failed: {os.strerror(ctypes.get_errno())}")
    torch.manual_seed(11)
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    start = torch.cuda.memory_allocated()
    mode = sys.argv[1]
    cases = [(n, t) for n, t in {"legacy": legacy_cases, "expandable": expandable_cases}[mode](dev)
             if t.numel()]
    torch.cuda.synchronize()
    plain = describe(cases[0][0], cases[0][1])
    shares = {"plain": (plain["ref_counter_file"], plain["ref_counter_offset"])}
    print(json.dumps(plain), flush=True)
    for name, t in cases:
        print(json.dumps({"case": name, "sha256": describe_sha(t)}), flush=True)
    server = fdsocket.Server()
    try:
        print("serving", server.path, flush=True)
        with server.accept() as sock:
            for name, t in cases:
                d = sharing.send_share(sock, t)
                shares[name] = (d.torch.ref_counter_file, d.torch.ref_counter_offset)
            sys.stdin.readline()
    finally:
        server.close()
    print(json.dumps({"slots": {k: slot_value(f, s) for k, (f, s) in shares.items()}}), flush=True)
    del cases, t
    torch.cuda.synchronize()
    torch.cuda.ipc_collect()
    print(json.dumps({"allocated_start": start, "allocated_after": torch.cuda.memory_allocated()}), flush=True)


def describe_sha(t):
    """The sha256 of the tensor's contiguous bytes, as torch_share_fields.describe gives it, without a share."""
    return hashlib.sha256(t.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes()).hexdigest()


if __name__ == "__main__":
    main()
