#!/usr/bin/env python3
"""The weight-sync example's Python side, both ways; speaks the weightsync/2 messages of docs/interop-format.md on
stdout (to the Java side) and stdin (from it). PYTHONPATH must reach the cudaipc4j package.

    python3 weight_sync.py trainer ROUNDS TENSORS SEED [mixed|bf16-small]
                                                         # torch trainer, Java server (WeightSyncExample)
    python3 weight_sync.py server SOCKET                 # Java trainer, Python server (WeightSyncProducerExample)
    python3 weight_sync.py checksum FILE                 # the wsum64 of a file's bytes (no torch needed)

trainer: its state dict is "mixed" by default (TENSORS from 1 KiB to 256 MiB, seven dtypes in turn, about 2.1 GiB
for 100) or "bf16-small" (bf16 from 512 B to 2 MiB, as a mixture of experts' checkpoint has tens of thousands: about
4.7 GiB for 20,000); each round updates every tensor in place (adds the round number), computes every tensor's
wsum64 on the GPU (one copy of the sums to the host), shares each anew (cudaipc4j.share records the producer's event
after the update) and sends its wsum64 with its descriptor; the server answers "ok" once it has checked them and
given every slot back. At the end it frees the state dict, runs torch.cuda.ipc_collect() and reports
torch.cuda.memory_allocated() against its start and the /dev/shm entries of this process still present.

server: warms CUDA up, connects to the trainer's descriptor socket and says "ready"; opens every tensor the trainer
exports once (cudaipc4j.open with the fds that came with its descriptor, which holds the export's lease); each round
recomputes each tensor's wsum64 on the GPU and compares it with the trainer's; at "end" drops every tensor (unmapped,
leases released) and reports its memory_allocated() against its start and its /dev/shm entries.

wsum64: the bytes as little-endian 64-bit words w[i], sum(w[i] * (2i + 1)) mod 2**64, as 16 hex digits; defined for
sizes that are multiples of 8 bytes only (every tensor of the state dict is), anything else is refused on both sides.
"""
import gc
import os
import struct
import sys

VERSION = "weightsync/2"
DTYPE_NAMES = ["float32", "bfloat16", "float16", "int32", "int64", "uint8", "float64"]
MIN_BYTES = 1 << 10
MAX_BYTES = 256 << 20
#: the state dicts, by name: (smallest tensor's bytes, largest tensor's bytes, dtypes in turn); the Java trainer's
#: are the same (org.cudaipc4j.examples.StateDict)
STATE_DICTS = {
    "mixed": (MIN_BYTES, MAX_BYTES, DTYPE_NAMES),
    "bf16-small": (512, 2 << 20, ["bfloat16"]),
}


def send(*fields):
    sys.stdout.write(" ".join([VERSION, *map(str, fields)]) + "\n")
    sys.stdout.flush()


def receive(kind, count):
    """The fields of the next line, which must be a `kind` message of `count` fields."""
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(f"the other side closed the pipe while {kind} was expected")
    got = line.split()
    if got[:2] != [VERSION, kind] or len(got) != 2 + count:
        raise SystemExit(f"expected {VERSION} {kind} with {count} field(s), got: {line.strip()}")
    return got[2:]


def expect(kind, *fields):
    got = receive(kind, len(fields))
    if got != [str(f) for f in fields]:
        raise SystemExit(f"expected {VERSION} {kind} {' '.join(map(str, fields))}, got: {' '.join(got)}")


def sizes(count, kind="mixed"):
    """count sizes from the state dict's smallest to its largest, evenly spaced in log; multiples of 8 (wsum64's
    words), so that every dtype's elements fill them."""
    smallest, largest, _ = STATE_DICTS[kind]
    if count == 1:
        return [largest]
    ratio = (largest / smallest) ** (1 / (count - 1))
    return [int(smallest * ratio ** i) // 8 * 8 for i in range(count)]


def state_dict(count, seed, kind="mixed"):
    import torch
    dtypes = [getattr(torch, name) for name in STATE_DICTS[kind][2]]
    g = torch.Generator(device="cuda").manual_seed(seed)
    out = {}
    for i, nbytes in enumerate(sizes(count, kind)):
        dtype = dtypes[i % len(dtypes)]
        n = nbytes // dtype.itemsize
        if dtype.is_floating_point:
            t = torch.randn(n, generator=g, device="cuda", dtype=torch.float32).to(dtype)
        else:
            t = torch.randint(0, 100, (n,), generator=g, device="cuda", dtype=dtype)
        out[f"layer{i:03d}.{str(dtype).removeprefix('torch.')}"] = t
    return out


def shm_entries():
    mine = f"torch_{os.getpid()}_"
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(mine) or n.startswith(f"cudaipc4j-{os.getpid()}-"))


def update_and_share(weights, r):
    """Round r: updates every tensor in place, sums each on the GPU, then shares each anew (a function of its own, so
    that no loop variable keeps a tensor alive after the state dict is freed)."""
    for t in weights.values():
        t.add_(r)  # in place: the server maps the same blocks again and must see these values
    sums = wsum64_all(list(weights.values()))
    send("round", r, len(weights))
    import cudaipc4j
    for (name, t), s in zip(weights.items(), sums):
        send("tensor", name, f"{s:016x}", cudaipc4j.to_json(cudaipc4j.share(t)))


def trainer(rounds, count, seed, kind="mixed"):
    import torch
    torch.cuda.init()
    torch.cuda.ipc_collect()
    start = torch.cuda.memory_allocated()
    weights = state_dict(count, seed, kind)
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


MASK = (1 << 64) - 1
#: words summed per step on the GPU, bounding the weights' and products' temporaries
CHUNK_WORDS = 8 << 20


def wsum64_bytes(data):
    """wsum64 of bytes, in plain Python: the reference the GPU sum and the Java trainer's agree with."""
    if len(data) % 8:
        raise ValueError(f"wsum64 reads 8-byte words: {len(data)} bytes")
    total = 0
    for i, (w,) in enumerate(struct.iter_unpack("<Q", data)):
        total += w * (2 * i + 1)
    return total & MASK


def wsum64(t):
    """wsum64 of a contiguous tensor's bytes, on its device, as a 0-d int64 tensor (wrapping integer arithmetic)."""
    import torch
    nbytes = t.numel() * t.element_size()
    if nbytes % 8:
        raise ValueError(f"wsum64 reads 8-byte words: {nbytes} bytes")
    w = t.reshape(-1).view(torch.uint8).view(torch.int64)
    total = torch.zeros((), dtype=torch.int64, device=w.device)
    for start in range(0, w.numel(), CHUNK_WORDS):
        part = w[start:start + CHUNK_WORDS]
        weights = torch.arange(2 * start + 1, 2 * (start + part.numel()) + 1, 2, dtype=torch.int64, device=w.device)
        total += (part * weights).sum()
    return total


def wsum64_all(tensors):
    """wsum64 of each tensor, as unsigned ints; one copy to the host."""
    import torch
    return [s & MASK for s in torch.stack([wsum64(t) for t in tensors]).cpu().tolist()]


def warm_up():
    """Creates the context and loads the kernels the checks use, then gives the memory back, so that what the
    trainer measures from "ready" on is its own."""
    import torch
    torch.cuda.init()
    sizes = (CHUNK_WORDS + 5, 3)
    ones = [torch.ones(n, dtype=torch.int64, device="cuda") for n in sizes]
    if wsum64_all(ones) != [n * n for n in sizes]:  # the sum of the first n odd numbers
        raise SystemExit("wsum64 on the GPU does not give n*n for n words of 1")
    mixed = torch.randint(-(1 << 63), (1 << 63) - 1, (1001,), dtype=torch.int64, device="cuda")
    if wsum64_all([mixed]) != [wsum64_bytes(bytes(mixed.cpu().view(torch.uint8).tolist()))]:
        raise SystemExit("wsum64 on the GPU differs from wsum64_bytes on the host")
    del ones, mixed
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def map_all(sock, count):
    """Opens the `count` exports the trainer announces, in order: name -> tensor."""
    import torch
    import cudaipc4j
    from cudaipc4j import fdsocket
    tensors = {}
    for _ in range(count):
        (name,) = receive("export", 1)
        d, fds = fdsocket.receive_descriptor(sock)
        t = cudaipc4j.open(d, fds=fds)
        if d.tensor is None or t.dtype != getattr(torch, d.tensor.dtype) or list(t.shape) != list(d.tensor.shape):
            raise SystemExit(f"{name}: opened as {t.dtype} {list(t.shape)}, the descriptor says {d.tensor}")
        tensors[name] = t
    return tensors


def check_rounds(tensors):
    """Checks rounds until "end": every tensor's wsum64 against the trainer's, then "ok"; returns the rounds."""
    names = list(tensors)
    rounds = 0
    while True:
        line = sys.stdin.readline()
        if line.split() == [VERSION, "end"]:
            return rounds
        got = line.split()
        if got[:2] != [VERSION, "round"] or got[2:] != [str(rounds + 1), str(len(names))]:
            raise SystemExit(f"expected {VERSION} round {rounds + 1} {len(names)} or end, got: {line.strip()}")
        rounds += 1
        announced = {}
        for _ in names:
            name, value = receive("checksum", 2)
            announced[name] = value
        for n, s in zip(names, wsum64_all([tensors[n] for n in names])):
            if f"{s:016x}" != announced.get(n):
                raise SystemExit(f"round {rounds}: {n} has wsum64 {s:016x}, the trainer's is {announced.get(n)}")
        send("ok", rounds)


def serve(sock):
    """Maps, checks, drops: a function of its own, so that no tensor outlives it."""
    (_, count) = receive("hello", 2)
    tensors = map_all(sock, int(count))
    send("mapped", len(tensors))
    check_rounds(tensors)


def server(socket_path):
    import torch
    from cudaipc4j import fdsocket
    warm_up()
    start = torch.cuda.memory_allocated()
    with fdsocket.connect(socket_path) as sock:
        send("ready", os.getpid())
        serve(sock)
        gc.collect()  # every mapping's finalizer has run: unmapped, then its lease released
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        send("memory", start, torch.cuda.memory_allocated(), len(shm_entries()))
        expect("bye")
    return 0


def main(argv):
    if len(argv) in (5, 6) and argv[1] == "trainer" and (len(argv) == 5 or argv[5] in STATE_DICTS):
        return trainer(int(argv[2]), int(argv[3]), int(argv[4]), argv[5] if len(argv) == 6 else "mixed")
    if len(argv) == 3 and argv[1] == "server":
        return server(argv[2])
    if len(argv) == 3 and argv[1] == "checksum":
        with open(argv[2], "rb") as f:
            print(f"{wsum64_bytes(f.read()):016x}")
        return 0
    print("usage: weight_sync.py trainer ROUNDS TENSORS SEED [mixed|bf16-small] | server SOCKET | checksum FILE",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
