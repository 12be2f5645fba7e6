"""Shares for readers on the stub driver (scripts/stub-reader-bench.sh), laid out as torch's, and the medians of the
readers' figures. 'c' shares carry legacy IPC handles; 'e' shares expandable segments' chunks: descriptors of this
process (empty memfds, which the stub driver imports as any descriptor), taken by the reader with pidfd_getfd; a
'pool' export is a memory-pool buffer's, whose pool descriptor (an empty memfd too) is taken the same way.

  stub_shares.py producer DIR REOPENS TENSORS ALLOCS
                                                makes the counter file and, for each allocator of ALLOCS (c, e,
                                                pool, comma-separated), DIR/tensor-ALLOC.jsonl and
                                                DIR/state-dict-ALLOC.jsonl ('pool': DIR/pool-pool.jsonl); prints
                                                "ready NAME SLOTS", removes the file when stdin closes
  stub_shares.py reset NAME SLOTS               every slot of NAME set to 1, as torch's producer sets it at a share
  stub_shares.py summary JSONL                  medians per build of the readers' JSON lines
"""
import ctypes
import json
import os
import resource
import secrets
import signal
import statistics
import struct
import sys

SHM = "/dev/shm"
HEADER_BYTES, SLOT_COUNT = 64, 10000  # torch's counter file: a header, then 8-byte slots
DEVICE_UUID = "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f"  # the stub's device 0
STATE_DICT_SIZES = [1024, 4096, 1 << 20, 4 << 20, 16 << 20]
CHUNK_BYTES = 20 << 20  # torch's expandable segments grow by 20 MiB chunks in the large pool
TENSOR_BYTES, BLOCK_BYTES = 64 << 20, 48 << 20  # the tensor's storage; a state-dict block: two storages, 32 MiB apart
PR_SET_PTRACER, PR_SET_PTRACER_ANY = 0x59616D61, (1 << 64) - 1


def ipc_handle(block):
    """A version 2 'c' handle as torch writes it: version, type, then the 64 bytes; none of them all zero."""
    return bytes([2, ord("c")]) + bytes((block * 7 + i) % 251 + 1 for i in range(64))


def event_handle(share):
    return bytes((share * 13 + i) % 251 + 1 for i in range(64))


def expandable_handle(pid, fds):
    """A version 2 'e' handle as torch writes it: version, type, pid, padding, chunk size, chunk count, fd numbers."""
    return struct.pack("<BBiiQQ", 2, ord("e"), pid, 0, CHUNK_BYTES, len(fds)) + struct.pack(f"<{len(fds)}i", *fds)


def chunk_count(block_bytes):
    return -(-block_bytes // CHUNK_BYTES)


def chunks(block_bytes):
    """Descriptors of this process, one per chunk of a block, kept open while the process lives."""
    return [os.memfd_create("stub-chunk") for _ in range(chunk_count(block_bytes))]


def allow_descriptors(count):
    """Raises this process's descriptor limit to hold COUNT more, up to its hard limit; exits in one line if short."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = count + 64  # and what the interpreter holds
    if need > soft and (hard == resource.RLIM_INFINITY or need <= hard):
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    elif need > soft:
        sys.exit(f"stub_shares: {count} chunk descriptors need a descriptor limit of {need}, the hard limit is {hard}")


def descriptor(name, slot, handle, offset, size, pid, pid_namespace):
    return {"cudaipc4j_descriptor": "1.0", "kind": "torch", "device_uuid": DEVICE_UUID, "bytes": size,
            "exporter": {"pid": pid, "pid_namespace": pid_namespace, "export_id": slot},
            "torch": {"handle": handle.hex(), "storage_bytes": size, "storage_offset_bytes": offset,
                      "ref_counter_file": name, "ref_counter_offset": slot, "device_index": 0},
            "tensor": {"dtype": "uint8", "shape": [size], "strides": [1], "offset": 0},
            "event": {"ipc_handle": event_handle(slot).hex(), "wait": True}}


def pool_descriptor(fd, pid, pid_namespace):
    """A pool buffer of TENSOR_BYTES exported through descriptor FD of this process, as the library describes one."""
    return {"cudaipc4j_descriptor": "1.0", "kind": "pool", "device_uuid": DEVICE_UUID, "bytes": TENSOR_BYTES,
            "exporter": {"pid": pid, "pid_namespace": pid_namespace, "export_id": 1}, "handle_type": "posix_fd",
            "fds": 1, "fd_numbers": [fd], "pool_id": 1, "pointer_export": bytes(range(1, 65)).hex()}


def reset(name, slots):
    with open(SHM + name, "r+b") as f:
        f.seek(HEADER_BYTES)
        f.write(struct.pack("<q", 1) * slots)


def allow_pidfd_getfd():
    """Lets the readers (not this process's descendants) take its descriptors where Yama restricts ptrace."""
    try:
        ctypes.CDLL(None).prctl(PR_SET_PTRACER, ctypes.c_ulong(PR_SET_PTRACER_ANY), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no prctl or no Yama: the same user's ptrace rights hold


def producer(directory, reopens, tensors, allocs):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the counter file is removed on a SIGTERM too
    allow_pidfd_getfd()
    pid = os.getpid()
    name = f"/torch_{pid}_{secrets.randbelow(1 << 31)}_0"
    per_alloc = 1 + reopens + tensors
    torch_allocs = [a for a in allocs if a in ("c", "e")]
    slots = max(1, len(torch_allocs) * per_alloc)
    if slots > SLOT_COUNT:
        sys.exit(f"stub_shares: {slots} shares ({per_alloc} per allocator) do not fit one counter file"
                 f" ({SLOT_COUNT} slots)")
    blocks = 1 + (tensors + 1) // 2
    if "e" in allocs:
        allow_descriptors(chunk_count(TENSOR_BYTES) + (blocks - 1) * chunk_count(BLOCK_BYTES))
    fd = os.open(SHM + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    try:
        os.ftruncate(fd, HEADER_BYTES + 8 * SLOT_COUNT)
        os.pwrite(fd, struct.pack("<i", 1), 0)  # the process count, as torch's allocator leaves it
        os.close(fd)
        reset(name, slots)
        # one 64 MiB storage shared 1 + REOPENS times; a state dict of two tensors per block; per allocator
        namespace = os.stat("/proc/self/ns/pid").st_ino
        if "pool" in allocs:
            with open(os.path.join(directory, "pool-pool.jsonl"), "w") as f:
                f.write(json.dumps(pool_descriptor(os.memfd_create("stub-pool"), pid, namespace)) + "\n")
        for i, alloc in enumerate(torch_allocs):
            handle = ([ipc_handle(b) for b in range(blocks)] if alloc == "c" else
                      [expandable_handle(pid, chunks(TENSOR_BYTES if b == 0 else BLOCK_BYTES)) for b in range(blocks)])
            first = i * per_alloc
            tensor = [descriptor(name, first + s, handle[0], 0, TENSOR_BYTES, pid, namespace)
                      for s in range(1 + reopens)]
            state_dict = [descriptor(name, first + 1 + reopens + t, handle[1 + t // 2], (t % 2) * (32 << 20),
                                     STATE_DICT_SIZES[t % len(STATE_DICT_SIZES)], pid, namespace)
                          for t in range(tensors)]
            for case, lines in (("tensor", tensor), ("state-dict", state_dict)):
                with open(os.path.join(directory, f"{case}-{alloc}.jsonl"), "w") as f:
                    f.writelines(json.dumps(d) + "\n" for d in lines)
        print("ready", name, slots, flush=True)
        sys.stdin.read()
    finally:
        os.unlink(SHM + name)


SUMMARY = ["exec_to_open_us", "jvm_start_us", "read_us", "leases_wait_us", "driver_wait_us", "context_us",
           "prepare_us", "first_open_us", "first_open_counter_us", "first_open_ipc_open_us", "first_open_pidfd_us",
           "first_open_chunk_map_us", "first_open_event_open_us", "reopen_us", "reopen_event_open_us", "open_us",
           "open_ipc_open_us", "open_pidfd_us", "open_chunk_map_us", "open_event_open_us", "pidfd_us",
           "pool_import_us", "pointer_import_us"]


def summary(jsonl):
    runs = {}
    with open(jsonl) as f:
        for line in f:
            d = json.loads(line)
            runs.setdefault(d["build"], {}).setdefault(f"{d['case']} {d['alloc']}", []).append(d)
    for build, cases in runs.items():
        print(build)
        for case, lines in cases.items():
            medians = [f"{k[:-3] if k.endswith('_us') else k}={statistics.median(d[k] for d in lines):.1f}"
                       for k in SUMMARY if all(k in d for d in lines)]
            print(f"  {case} ({len(lines)} runs): " + " ".join(medians))


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "producer" and len(sys.argv) == 6 and sys.argv[5] and set(sys.argv[5].split(",")) <= {"c", "e", "pool"}:
        producer(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), list(dict.fromkeys(sys.argv[5].split(","))))
    elif command == "reset" and len(sys.argv) == 4:
        reset(sys.argv[2], int(sys.argv[3]))
    elif command == "summary" and len(sys.argv) == 3:
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
