"""Rank 0 of a GPU test: a torch process that broadcasts a tensor to Java ranks through cudaipc4j.nccl.

Usage: nccl_torch_rank.py SIZE INTS. Prints "library PATH", "version CODE" and "id HEX" (for the Java ranks), then
broadcasts INTS int32 values, element i = (i * 2654435761) mod 2**32 as a signed int, and prints "ok broadcast BYTES".
"""
import sys

import torch

from cudaipc4j import nccl


def main() -> None:
    size, ints = int(sys.argv[1]), int(sys.argv[2])
    torch.cuda.set_device(0)
    lib = nccl.Nccl()
    print("library", lib.library, flush=True)
    print("version", lib.version, flush=True)
    uid = lib.new_unique_id()
    print("id", uid.hex(), flush=True)
    i = torch.arange(ints, dtype=torch.int64, device="cuda")
    tensor = ((i * 2654435761) & 0xFFFFFFFF).to(torch.uint32).view(torch.int32) if hasattr(torch, "uint32") \
        else (((i * 2654435761) & 0xFFFFFFFF) - ((((i * 2654435761) & 0xFFFFFFFF) >> 31) << 32)).to(torch.int32)
    del i
    torch.cuda.synchronize()
    with nccl.Communicator(lib, uid, 0, size, timeout=120, name="torch-rank-0") as comm:
        nccl.broadcast_tensor(comm, tensor, root=0)
    print("ok broadcast", tensor.numel() * tensor.element_size(), flush=True)


if __name__ == "__main__":
    main()
