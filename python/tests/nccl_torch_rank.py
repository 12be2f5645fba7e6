"""Rank 0 of a GPU test: a torch process that broadcasts a tensor to Java ranks, through the rendezvous and the
NCCL binding of the cudaipc4j package, started by the test with cudaipc4j's launcher variables (CUDAIPC4J_RANK,
CUDAIPC4J_WORLD_SIZE, CUDAIPC4J_RENDEZVOUS, CUDAIPC4J_RENDEZVOUS_SECRET).

Usage: nccl_torch_rank.py INTS. Prints "library PATH" and "version CODE" (the NCCL the Java ranks must load), joins,
broadcasts INTS int32 values, element i = (i * 2654435761) mod 2**32 as a signed int, and prints "ok broadcast BYTES".
"""
import sys

import torch

from cudaipc4j import nccl


def main() -> None:
    ints = int(sys.argv[1])
    torch.cuda.set_device(0)
    lib = nccl.Nccl()
    print("library", lib.library, flush=True)
    print("version", lib.version, flush=True)
    i = torch.arange(ints, dtype=torch.int64, device="cuda")
    tensor = (((i * 2654435761) & 0xFFFFFFFF) - ((((i * 2654435761) & 0xFFFFFFFF) >> 31) << 32)).to(torch.int32)
    del i
    torch.cuda.synchronize()
    with nccl.join_launched(nccl=lib, timeout=120, name="torch-rank-0") as rank:
        nccl.broadcast_tensor(rank.communicator, tensor, root=0)
    print("ok broadcast", tensor.numel() * tensor.element_size(), flush=True)


if __name__ == "__main__":
    main()
