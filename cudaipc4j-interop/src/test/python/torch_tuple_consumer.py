#!/usr/bin/env python3
"""An unmodified torch consumer of tuples a Java TorchTupleExport minted, for the GPU tests: it rebuilds each with
torch's own rebuild_cuda_tensor and nothing else, as a framework's weight loader does with the tuple it unpickles.

    python3 torch_tuple_consumer.py plain     # the 15 arguments built here from the JSON with torch alone
    python3 torch_tuple_consumer.py package   # the arguments from cudaipc4j.torch_tuple (PYTHONPATH=python)

Reads one torch descriptor (JSON) a line until "rebuilt"; for each prints {"sha256", "storage_ptr", "data_ptr"}
(the sha256 of the tensor's contiguous bytes). Then it prints "ready" and waits; on "drop" it deletes every tensor
(torch's deleter gives each slot back) and prints "dropped"; on "exit" it exits.
"""
import gc
import hashlib
import json
import sys

import torch
from torch.multiprocessing.reductions import rebuild_cuda_tensor


def ordinal_of(uuid):
    """This process's ordinal of the GPU with ``uuid``, as the frameworks find it."""
    for i in range(torch.cuda.device_count()):
        if "GPU-" + str(torch.cuda.get_device_properties(i).uuid) == uuid.lower().replace("gpu-", "GPU-"):
            return i
    raise SystemExit(f"device {uuid} is not visible here")


def plain_args(d):
    """What a framework receives: torch's 15 arguments, built from the descriptor's fields with torch alone."""
    t, s = d["tensor"], d["torch"]
    return (torch.Tensor, torch.Size(t["shape"]), tuple(t["strides"]), t["offset"], torch.storage.TypedStorage,
            getattr(torch, t["dtype"]), ordinal_of(d["device_uuid"]), bytes.fromhex(s["handle"]),
            s["storage_bytes"], s["storage_offset_bytes"], False, s["ref_counter_file"].encode(),
            s["ref_counter_offset"], bytes(64), False)


def main():
    mode = sys.argv[1]
    torch.cuda.init()
    tensors = []
    t = None
    for line in sys.stdin:
        line = line.strip()
        if line == "rebuilt":
            break
        d = json.loads(line)
        if mode == "package":
            import cudaipc4j
            args = cudaipc4j.torch_tuple(line, device=ordinal_of(d["device_uuid"]))
        else:
            args = plain_args(d)
        t = rebuild_cuda_tensor(*args)
        data = t.contiguous().cpu().view(torch.uint8).numpy().tobytes() if t.numel() else b""
        tensors.append(t)
        print(json.dumps({"sha256": hashlib.sha256(data).hexdigest(),
                          "storage_ptr": t.untyped_storage().data_ptr(), "data_ptr": t.data_ptr()}), flush=True)
    print("ready", flush=True)
    for line in sys.stdin:
        line = line.strip()
        if line == "drop":
            t = None
            tensors.clear()
            gc.collect()
            print("dropped", flush=True)
        elif line == "exit":
            return


if __name__ == "__main__":
    main()
