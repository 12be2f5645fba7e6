"""The other process of the GPU tests (run as a script; it needs a GPU).

  gpu_peer.py export KIND SOCKET       exports memory as a Java exporter does (KIND legacy, vmm or pool) with
                                       cuda.bindings: prints "sha256 <hex>" of its bytes and "descriptor <json>",
                                       serves the descriptor (and fd) on SOCKET, signs readers into a holder table,
                                       waits for "done", for the release, prints "released" and "after <sha256>"
  gpu_peer.py torch-share              shares tensors through cudaipc4j.share: prints "case <name> <sha256> <json>"
                                       per tensor, "ready"; on the line "free" from stdin deletes them, runs
                                       torch.cuda.ipc_collect() and prints "allocated <before> <after>"
  gpu_peer.py torch-serve              as torch-share, but no process without CAP_SYS_PTRACE may take its fds
                                       (PR_SET_DUMPABLE 0): prints "plain <json>" (a share of its first tensor),
                                       "case <name> <sha256>" per tensor, "serving <socket>"; serves one reader every
                                       tensor shared anew with its chunks' fds (sharing.send_share); on "free" as
                                       torch-share
  gpu_peer.py torch-read SOCKET N      reads a plain share's JSON from stdin and prints "opened" or "refused <line>";
                                       receives N shares over SOCKET, opens each with its fds, prints "sha <sha256>"
                                       each, "holding"; on "release" drops them and prints "released"
"""
import ctypes
import gc
import hashlib
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PATTERN_BYTES = 3 * 1024 * 1024 + 10


def pattern(n, salt=0):
    return bytes((i * 7 + 3 + salt) % 251 for i in range(n))


def create_holder_table(capacity=8):
    from cudaipc4j import holders
    name = f"cudaipc4j-{os.getpid()}-{os.urandom(8).hex()}-holders"
    data = bytearray(holders.HEADER + capacity * holders.ENTRY)
    struct.pack_into("<i", data, 8, capacity)
    struct.pack_into("<Q", data, 0, holders.MAGIC)
    fd = os.open(f"/dev/shm/{name}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.write(fd, bytes(data))
    os.close(fd)
    return name


def export(kind, socket_path):
    import ctypes

    from cuda.bindings import driver as cu

    from cudaipc4j import descriptor as d
    from cudaipc4j import devices, fdsocket
    from cudaipc4j._cuda import check
    from cudaipc4j.holders import HolderTable
    from cudaipc4j.pidfd import pid_namespace

    check(cu.cuInit(0), "cuInit")
    dev = check(cu.cuDeviceGet(0), "cuDeviceGet")
    ctx = check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    uuid = devices.visible_devices()[0][1]
    size = PATTERN_BYTES
    fd_type = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    fds, extra, cleanup = [], {}, []
    if kind == "legacy":
        ptr = check(cu.cuMemAlloc(size), "cuMemAlloc")
        handle = check(cu.cuIpcGetMemHandle(ptr), "cuIpcGetMemHandle")
        extra = dict(ipc_handle=ctypes.string_at(handle.getPtr(), 64),
                     tensor=d.Tensor("bfloat16", (512, 3), (1024, 2), 5))
        cleanup.append(lambda: check(cu.cuMemFree(ptr), "cuMemFree"))
    elif kind == "vmm":
        prop = cu.CUmemAllocationProp()
        prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        prop.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        prop.location.id = 0
        prop.requestedHandleTypes = fd_type
        gran = check(cu.cuMemGetAllocationGranularity(
            prop, cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity")
        mapped = -(-size // gran) * gran
        handle = check(cu.cuMemCreate(mapped, prop, 0), "cuMemCreate")
        ptr = check(cu.cuMemAddressReserve(mapped, gran, 0, 0), "cuMemAddressReserve")
        check(cu.cuMemMap(ptr, mapped, 0, handle, 0), "cuMemMap")
        access = cu.CUmemAccessDesc()
        access.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        access.location.id = 0
        access.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        check(cu.cuMemSetAccess(ptr, mapped, [access], 1), "cuMemSetAccess")
        fd = int(check(cu.cuMemExportToShareableHandle(handle, fd_type, 0), "cuMemExportToShareableHandle"))
        fds = [fd]
        extra = dict(handle_type="posix_fd", fds=1, fd_numbers=(fd,))
        cleanup += [lambda: os.close(fd), lambda: check(cu.cuMemUnmap(ptr, mapped), "cuMemUnmap"),
                    lambda: check(cu.cuMemAddressFree(ptr, mapped), "cuMemAddressFree"),
                    lambda: check(cu.cuMemRelease(handle), "cuMemRelease")]
    elif kind == "pool":
        props = cu.CUmemPoolProps()
        props.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        props.handleTypes = fd_type
        props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        props.location.id = 0
        pool = check(cu.cuMemPoolCreate(props), "cuMemPoolCreate")
        stream = cu.CUstream(0)
        ptr = check(cu.cuMemAllocFromPoolAsync(size, pool, stream), "cuMemAllocFromPoolAsync")
        check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize")
        fd = int(check(cu.cuMemPoolExportToShareableHandle(pool, fd_type, 0), "cuMemPoolExportToShareableHandle"))
        data = check(cu.cuMemPoolExportPointer(ptr), "cuMemPoolExportPointer")
        fds = [fd]
        extra = dict(handle_type="posix_fd", fds=1, fd_numbers=(fd,), pool_id=1,
                     pointer_export=ctypes.string_at(data.getPtr(), 64),
                     tensor=d.Tensor("float16", (1000,), (1,), 0))
        cleanup += [lambda: os.close(fd), lambda: check(cu.cuMemFree(ptr), "cuMemFree"),
                    lambda: check(cu.cuMemPoolDestroy(pool), "cuMemPoolDestroy")]
    else:
        sys.exit(f"gpu_peer: unknown kind {kind}")
    host = pattern(size)
    source = ctypes.create_string_buffer(host, size)
    check(cu.cuMemcpyHtoD(ptr, ctypes.addressof(source), size), "cuMemcpyHtoD")
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    table_name = create_holder_table()
    table = HolderTable(table_name)
    desc = d.Descriptor(kind=kind, device_uuid=uuid, bytes=size,
                        exporter=d.Exporter(os.getpid(), pid_namespace(), 11, table_name), **extra)
    print("sha256", hashlib.sha256(host).hexdigest(), flush=True)
    print("descriptor", d.to_json(desc), flush=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(socket_path)
    server.listen(1)
    server.settimeout(120)
    try:
        conn, _ = server.accept()
        with conn:
            fdsocket.check_peer(conn, "the reader")
            fdsocket.send_descriptor(conn, desc, fds)
            payload, _ = fdsocket.receive(conn, timeout=120)
            assert payload == b"done", payload
        deadline = time.monotonic() + 10
        while table.holders(11):
            if time.monotonic() > deadline:
                sys.exit(f"gpu_peer: export still held by {table.holders(11)} 10 s after done")
            time.sleep(0.01)  # polling the table is the exporter's documented wait (awaitReleased)
        print("released", flush=True)
        back = ctypes.create_string_buffer(size)
        check(cu.cuMemcpyDtoH(ctypes.addressof(back), ptr, size), "cuMemcpyDtoH")
        print("after", hashlib.sha256(back.raw).hexdigest(), flush=True)
    finally:
        server.close()
        os.unlink(socket_path)
        table.close()
        os.unlink(f"/dev/shm/{table_name}")
        for step in cleanup:
            step()


def torch_share():
    import torch

    import cudaipc4j
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    start = torch.cuda.memory_allocated()
    torch.manual_seed(7)
    base = torch.randn(1024 * 1024, device=dev)
    tensors = {
        "float32-4mib": torch.arange(1 << 20, dtype=torch.float32, device=dev),
        "bf16": torch.randn(1024, dtype=torch.bfloat16, device=dev),
        "strided-view": base.view(1024, 1024)[:, 3:7],
        "stride0": torch.randn(4, device=dev).expand(3, 4),
        "bool": torch.rand(333, device=dev) > 0.5,
        "fp8": torch.randn(1000, device=dev).to(torch.float8_e4m3fn),
        "empty": torch.empty(0, 5, device=dev),
    }
    torch.cuda.synchronize()
    for name, t in tensors.items():
        data = t.contiguous().view(torch.uint8).cpu().numpy().tobytes() if t.numel() else b""
        print("case", name, hashlib.sha256(data).hexdigest(), cudaipc4j.to_json(cudaipc4j.share(t)), flush=True)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "free":
        sys.exit("gpu_peer: expected 'free'")
    del tensors, base, t
    _collect_and_report(torch, start)


def _torch_tensors(dev):
    import torch
    torch.manual_seed(7)
    base = torch.randn(1024 * 1024, device=dev)
    return {
        "float32-4mib": torch.arange(1 << 20, dtype=torch.float32, device=dev),
        "bf16": torch.randn(1024, dtype=torch.bfloat16, device=dev),
        "strided-view": base.view(1024, 1024)[:, 3:7],
        "large-float64": torch.randn(3 << 20, dtype=torch.float64, device=dev),
    }


def torch_serve():
    import torch

    from cudaipc4j import fdsocket, sharing, to_json
    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        sys.exit(f"gpu_peer: prctl(PR_SET_DUMPABLE, 0) failed: {os.strerror(ctypes.get_errno())}")
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    start = torch.cuda.memory_allocated()
    tensors = _torch_tensors(dev)
    tensors["float32-4mib-again"] = tensors["float32-4mib"]  # a second share of a storage open in the reader
    torch.cuda.synchronize()
    print("plain", to_json(sharing.share(tensors["bf16"])), flush=True)
    for name, t in tensors.items():
        print("case", name, hashlib.sha256(t.contiguous().view(torch.uint8).cpu().numpy().tobytes()).hexdigest(),
              flush=True)
    server = fdsocket.Server()
    try:
        print("serving", server.path, flush=True)
        with server.accept() as sock:
            for t in tensors.values():
                sharing.send_share(sock, t)
    finally:
        server.close()
    if sys.stdin.readline().strip() != "free":
        sys.exit("gpu_peer: expected 'free'")
    del tensors, t
    _collect_and_report(torch, start)


def _collect_and_report(torch, start):
    deadline = time.monotonic() + 5
    while True:
        torch.cuda.ipc_collect()
        after = torch.cuda.memory_allocated()
        if after == start or time.monotonic() > deadline:
            break
        time.sleep(0.01)  # the readers' releases are in torch's counter file; ipc_collect polls it
    print("allocated", start, after, flush=True)


def torch_read(path, count):
    import torch

    import cudaipc4j
    from cudaipc4j import fdsocket
    try:
        t = cudaipc4j.open(cudaipc4j.from_json(sys.stdin.readline()))
        print("opened", flush=True)
        del t
    except cudaipc4j.Error as e:
        print("refused", e, flush=True)
    sock = fdsocket.connect(path)
    held = []
    for _ in range(count):
        payload, fds = fdsocket.receive(sock)
        t = cudaipc4j.open(cudaipc4j.from_json(payload), fds=fds)
        held.append(t)
        data = t.contiguous().view(torch.uint8).cpu().numpy().tobytes()
        print("sha", hashlib.sha256(data).hexdigest(), flush=True)
    print("holding", flush=True)
    if sys.stdin.readline().strip() != "release":
        sys.exit("gpu_peer: expected 'release'")
    del held, t
    gc.collect()
    torch.cuda.synchronize()
    sock.close()
    print("released", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "torch-share":
        torch_share()
    elif sys.argv[1] == "torch-serve":
        torch_serve()
    elif sys.argv[1] == "torch-read":
        torch_read(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(f"gpu_peer: unknown mode {sys.argv[1]}")
