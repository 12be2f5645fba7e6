"""torch.distributed's side of scripts/nccl-bench.sh: the same measurements as the Java ranks (NcclBench), through
torch's NCCL process group. Run as one rank of a torchrun-style environment (RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR, MASTER_PORT). Usage: nccl_bench_torch.py sendrecv|allreduce BYTES[,BYTES...] OPS REPEATS
"""
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist


def parse_bytes(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def main() -> None:
    op, sizes, ops, repeats = sys.argv[1], [parse_bytes(s) for s in sys.argv[2].split(",")], int(sys.argv[3]), \
        int(sys.argv[4])
    local = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    rank, size = dist.get_rank(), dist.get_world_size()
    buffer = torch.zeros(max(sizes), dtype=torch.uint8, device=device)
    one = torch.zeros(1, dtype=torch.float32, device=device)
    for nbytes in sizes:
        part = buffer[: nbytes // 4 * 4]

        def work() -> None:
            for _ in range(ops):
                if op == "allreduce":
                    dist.all_reduce(part.view(torch.float32))
                elif rank == 0:
                    dist.send(part, 1)
                elif rank == 1:
                    dist.recv(part, 0)

        work()
        torch.cuda.synchronize()
        runs = []
        for _ in range(repeats):
            dist.all_reduce(one)
            torch.cuda.synchronize()
            start = time.perf_counter_ns()
            work()
            torch.cuda.synchronize()
            runs.append((time.perf_counter_ns() - start) / 1e9 / ops)
        median = statistics.median(runs)
        algo = nbytes / median / 1e9
        bus = algo * 2 * (size - 1) / size if op == "allreduce" else algo
        if rank == 0:
            v = torch.cuda.nccl.version()
            print(json.dumps({"impl": "torch", "nccl": ".".join(map(str, v)), "op": op, "ranks": size,
                              "bytes": nbytes, "us": round(median * 1e6, 2), "algGBps": round(algo, 3),
                              "busGBps": round(bus, 3), "runs_us": [round(r * 1e6, 2) for r in runs]}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
