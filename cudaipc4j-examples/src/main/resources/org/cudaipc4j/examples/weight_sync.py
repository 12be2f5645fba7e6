#!/usr/bin/env python3
"""The weight-sync trainer: shares a seeded state dict of torch tensors with a Java server, round after round.

Speaks the weightsync/1 messages of docs/interop.md on stdout (to the server) and stdin (from it):

    python3 weight_sync.py trainer ROUNDS TENSORS SEED     # PYTHONPATH must reach the cudaipc4j package

Each round updates every tensor in place (adds the round number), shares each anew (cudaipc4j.share records the
producer's event after the update) and sends its sha256 with its descriptor; the server answers "ok" once it has
checked them and given every slot back. At the end it frees the state dict, runs torch.cuda.ipc_collect() and
reports torch.cuda.memory_allocated() against its start and the /dev/shm entries of this process still present.
"""
import hashlib
import os
import sys

import torch

import cudaipc4j

VERSION = "weightsync/1"
DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int64, torch.uint8, torch.float64]
MIN_BYTES = 1 << 10
MAX_BYTES = 256 << 20


def send(*fields):
    sys.stdout.write(" ".join([VERSION, *map(str, fields)]) + "\n")
    sys.stdout.flush()


def expect(kind, *fields):
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(f"the server closed the pipe while {kind} was expected")
    got = line.split()
    if got[:2] != [VERSION, kind] or got[2:] != [str(f) for f in fields]:
        raise SystemExit(f"expected {VERSION} {kind} {' '.join(map(str, fields))}, got: {line.strip()}")


def sizes(count):
    """count sizes from MIN_BYTES to MAX_BYTES, evenly spaced in log."""
    if count == 1:
        return [MAX_BYTES]
    ratio = (MAX_BYTES / MIN_BYTES) ** (1 / (count - 1))
    return [int(MIN_BYTES * ratio ** i) // 8 * 8 for i in range(count)]


def state_dict(count, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    out = {}
    for i, nbytes in enumerate(sizes(count)):
        dtype = DTYPES[i % len(DTYPES)]
        n = nbytes // dtype.itemsize
        if dtype.is_floating_point:
            t = torch.randn(n, generator=g, device="cuda", dtype=torch.float32).to(dtype)
        else:
            t = torch.randint(0, 100, (n,), generator=g, device="cuda", dtype=dtype)
        out[f"layer{i:03d}.{str(dtype).removeprefix('torch.')}"] = t
    return out


def sha256(t):
    return hashlib.sha256(t.contiguous().view(torch.uint8).cpu().numpy().tobytes()).hexdigest()


def shm_entries():
    mine = f"torch_{os.getpid()}_"
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(mine) or n.startswith(f"cudaipc4j-{os.getpid()}-"))


def update_and_share(weights, r):
    """Round r: updates every tensor in place, then shares each anew (a function of its own, so that no loop variable
    keeps a tensor alive after the state dict is freed)."""
    for t in weights.values():
        t.add_(r)  # in place: the server maps the same blocks again and must see these values
    send("round", r, len(weights))
    for name, t in weights.items():
        send("tensor", name, sha256(t), cudaipc4j.to_json(cudaipc4j.share(t)))


def trainer(rounds, count, seed):
    torch.cuda.init()
    torch.cuda.ipc_collect()
    start = torch.cuda.memory_allocated()
    weights = state_dict(count, seed)
    send("hello", os.getpid(), len(weights))
    for r in range(1, rounds + 1):
        update_and_share(weights, r)
        expect("ok", r)
    send("end")
    expect("bye")
    del weights
    torch.cuda.synchronize()
    torch.cuda.ipc_collect()
    send("memory", start, torch.cuda.memory_allocated(), len(shm_entries()))
    return 0


def main(argv):
    if len(argv) != 5 or argv[1] != "trainer":
        print("usage: weight_sync.py trainer ROUNDS TENSORS SEED", file=sys.stderr)
        return 2
    return trainer(int(argv[2]), int(argv[3]), int(argv[4]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
