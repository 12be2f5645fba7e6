"""Python side of cudaipc4j's memory sharing: a cuda.core / cuda.bindings / PyTorch process on the other end.

It speaks cudaipc4j's descriptor socket (org.cudaipc4j.coord.fd.FdChannel): each message is a 12-byte header
(magic "CIFD", payload length, descriptor count; little-endian) sent with its file descriptors (SCM_RIGHTS), then the
payload; memory travels as a cudaipc4j memory descriptor (org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor).

  interop.py import-pool SOCKET EXPECTED VALUE   a JVM's pool buffer, imported with cuda.core
  interop.py import-vmm SOCKET EXPECTED VALUE    a JVM's VMM allocation, mapped with cuda.bindings
  interop.py torch-view SOCKET EXPECTED VALUE    a JVM's pool buffer seen by PyTorch as a tensor, without a copy
  interop.py export-pool SOCKET BYTES VALUE EXPECTED_BACK
                                                 a cuda.core pool buffer, sent to the JVM, read back afterwards

Each import checks every byte is EXPECTED, writes VALUE, releases everything and answers "done". Prints one line of
what it did; on a failed check, one line on stderr and exit 1.
"""
import os
import socket
import struct
import sys

import numpy
from cuda.bindings import driver as cu

try:
    from cuda.core import Buffer, Device, DeviceMemoryResource, DeviceMemoryResourceOptions
except ImportError:  # older cuda.core releases
    from cuda.core.experimental import Buffer, Device, DeviceMemoryResource, DeviceMemoryResourceOptions

MESSAGE_MAGIC = 0x44464943
DESCRIPTOR_MAGIC = 0x3143534443504943
DESCRIPTOR_HEADER = struct.Struct("<QHHHHQ16sQQQQQQ")
PATHS = ["legacy", "vmm-fd", "pool-fd", "vmm-fabric", "pool-fabric"]


def ipc_buffer_descriptor_class():
    for module in ("cuda.core._memory._ipc", "cuda.core._memory", "cuda.core.experimental._memory._ipc",
                   "cuda.core.experimental._memory"):
        try:
            return getattr(__import__(module, fromlist=["IPCBufferDescriptor"]), "IPCBufferDescriptor")
        except (ImportError, AttributeError):
            continue
    sys.exit("interop: this cuda.core has no IPCBufferDescriptor")


def checked(result):
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return values[0] if len(values) == 1 else values


def receive(sock):
    header, fds, _flags, _addr = socket.recv_fds(sock, 12, 253)
    while len(header) < 12:
        more = sock.recv(12 - len(header))
        if not more:
            sys.exit("interop: the JVM closed the socket")
        header += more
    magic, length, count = struct.unpack("<III", header)
    if magic != MESSAGE_MAGIC or count != len(fds):
        sys.exit(f"interop: bad message (magic {magic:#x}, {count} descriptors announced, {len(fds)} came)")
    payload = b""
    while len(payload) < length:
        chunk = sock.recv(length - len(payload))
        if not chunk:
            sys.exit("interop: the JVM closed the socket inside a message")
        payload += chunk
    return payload, fds


def send(sock, payload, fds=()):
    socket.send_fds(sock, [struct.pack("<III", MESSAGE_MAGIC, len(payload), len(fds)) + payload], list(fds))


def parse(descriptor):
    (magic, path, fds, handle_len, _spare, size, _uuid, _pid, _token, _export, _pool, _group, _pid_ns) = \
        DESCRIPTOR_HEADER.unpack_from(descriptor)
    if magic != DESCRIPTOR_MAGIC:
        sys.exit("interop: not a memory descriptor")
    return PATHS[path], size, descriptor[DESCRIPTOR_HEADER.size:DESCRIPTOR_HEADER.size + handle_len]


def describe(path, size, handle, device_uuid):
    """A cudaipc4j memory descriptor for memory of this process."""
    most = int.from_bytes(device_uuid[:8], "big")
    least = int.from_bytes(device_uuid[8:], "big")
    return DESCRIPTOR_HEADER.pack(DESCRIPTOR_MAGIC, PATHS.index(path), 1 if path.endswith("-fd") else 0,
                                  len(handle), 0, size, struct.pack("<QQ", most, least), os.getpid(),
                                  int.from_bytes(os.urandom(8), "little") | 1, 1, 1, 0,
                                  os.stat("/proc/self/ns/pid").st_ino) + handle


def count_other(ptr, size, expected):
    host = numpy.empty(size, dtype=numpy.uint8)
    checked(cu.cuMemcpyDtoH(host.ctypes.data, ptr, size))
    return int(numpy.count_nonzero(host != expected))


def fill(ptr, size, value):
    checked(cu.cuMemsetD8(ptr, value, size))
    checked(cu.cuCtxSynchronize())


def connect(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    return sock


def import_pool_buffer(device, path, size, handle, fd):
    mr = DeviceMemoryResource.from_allocation_handle(device, fd)
    descriptor = ipc_buffer_descriptor_class()._init(bytes(handle), size)
    try:
        # cuda.core 1.x: the stream on which the imported buffer is freed is a keyword argument.
        buffer = Buffer.from_ipc_descriptor(mr, descriptor, stream=device.default_stream)
    except TypeError:  # releases before it took no stream
        buffer = Buffer.from_ipc_descriptor(mr, descriptor)
    return mr, buffer


def import_pool(sock_path, expected, value, view_with_torch):
    device = Device(0)
    device.set_current()
    with connect(sock_path) as sock:
        payload, fds = receive(sock)
        path, size, handle = parse(payload)
        if path != "pool-fd":
            sys.exit(f"interop: expected a pool-fd descriptor, got {path}")
        mr, buffer = import_pool_buffer(device, path, size, handle, fds[0])
        os.close(fds[0])
        ptr = int(buffer.handle)
        if view_with_torch:
            import torch
            tensor = torch.from_dlpack(buffer)
            if tensor.data_ptr() != ptr or tensor.numel() != size:
                sys.exit("interop: the tensor is not the JVM's memory")
            bad = int((tensor != expected).sum().item())
            reader = f"PyTorch {torch.__version__} (a tensor over the JVM's pool buffer)"
        else:
            bad = count_other(ptr, size, expected)
            reader = "cuda.core"
        if bad:
            sys.exit(f"interop: {bad} of {size} bytes differ from {expected}")
        fill(ptr, size, value)
        if view_with_torch:
            del tensor
        buffer.close()
        mr.close()
        send(sock, b"done")
    print(f"{reader} imported a {size}-byte pool buffer, read {expected} and wrote {value}")


def import_vmm(sock_path, expected, value):
    device = Device(0)
    device.set_current()
    with connect(sock_path) as sock:
        payload, fds = receive(sock)
        path, size, _ = parse(payload)
        if path != "vmm-fd":
            sys.exit(f"interop: expected a vmm-fd descriptor, got {path}")
        fd_type = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        handle = checked(cu.cuMemImportFromShareableHandle(fds[0], fd_type))
        os.close(fds[0])
        ptr = checked(cu.cuMemAddressReserve(size, 0, 0, 0))
        checked(cu.cuMemMap(ptr, size, 0, handle, 0))
        access = cu.CUmemAccessDesc()
        access.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        access.location.id = 0
        access.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        checked(cu.cuMemSetAccess(ptr, size, [access], 1))
        bad = count_other(int(ptr), size, expected)
        if bad:
            sys.exit(f"interop: {bad} of {size} bytes differ from {expected}")
        fill(int(ptr), size, value)
        checked(cu.cuMemUnmap(ptr, size))
        checked(cu.cuMemAddressFree(ptr, size))
        checked(cu.cuMemRelease(handle))
        send(sock, b"done")
    print(f"cuda.bindings mapped a {size}-byte VMM allocation, read {expected} and wrote {value}")


def export_pool(sock_path, size, value, expected_back):
    device = Device(0)
    device.set_current()
    mr = DeviceMemoryResource(device, DeviceMemoryResourceOptions(ipc_enabled=True, max_size=max(size, 1 << 21)))
    stream = device.create_stream()
    buffer = mr.allocate(size, stream=stream)
    stream.sync()
    ptr = int(buffer.handle)
    fill(ptr, size, value)
    _, (export_data, _size) = buffer.ipc_descriptor.__reduce__()
    device_uuid = bytes(checked(cu.cuDeviceGetUuid(checked(cu.cuDeviceGet(0)))).bytes)[:16]
    allocation_handle = mr.allocation_handle
    fd = allocation_handle if isinstance(allocation_handle, int) else int(allocation_handle)
    with connect(sock_path) as sock:
        send(sock, describe("pool-fd", size, bytes(export_data), device_uuid), [fd])
        reply, _ = receive(sock)
        if reply != b"done":
            sys.exit(f"interop: the JVM answered {reply!r}")
    bad = count_other(ptr, size, expected_back)
    if bad:
        sys.exit(f"interop: {bad} of {size} bytes differ from the JVM's {expected_back}")
    buffer.close(stream)
    stream.sync()
    mr.close()
    print(f"cuda.core exported a {size}-byte pool buffer; the JVM wrote {expected_back} into it")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "import-pool":
        import_pool(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), False)
    elif mode == "torch-view":
        import_pool(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), True)
    elif mode == "import-vmm":
        import_vmm(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "export-pool":
        export_pool(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(f"interop: unknown mode {mode}")
