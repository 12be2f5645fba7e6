"""CuPy side of cudaipc4j's interop tests: a real CUDA runtime client on the other end of an IPC handle.

  cupy_ipc.py open-and-write HANDLE_HEX BYTES EXPECTED VALUE
      opens a memory handle another process exported, checks every byte equals EXPECTED,
      writes VALUE into every byte, synchronizes and closes the mapping.
  cupy_ipc.py export BYTES VALUE
      allocates BYTES with cudaMalloc, fills them with VALUE, prints the 64-byte handle as hex,
      then keeps the memory alive until a line arrives on stdin.

Exit status 0 on success; 1 with one line on stderr when a check fails.
"""
import sys

import cupy
import numpy

DEVICE_TO_HOST = 2  # cudaMemcpyDeviceToHost


def check_all(ptr, n, expected):
    host = numpy.empty(n, dtype=numpy.uint8)
    cupy.cuda.runtime.memcpy(host.ctypes.data, ptr, n, DEVICE_TO_HOST)
    bad = numpy.flatnonzero(host != expected)
    if bad.size:
        sys.exit(f"cupy_ipc: {bad.size} bytes differ from {expected}, first at {bad[0]} ({host[bad[0]]})")


def open_and_write(handle_hex, n, expected, value):
    handle = bytes.fromhex(handle_hex)
    if len(handle) != 64:
        sys.exit(f"cupy_ipc: a handle is 64 bytes, got {len(handle)}")
    ptr = cupy.cuda.runtime.ipcOpenMemHandle(handle)
    try:
        check_all(ptr, n, expected)
        cupy.cuda.runtime.memset(ptr, value, n)
        cupy.cuda.runtime.deviceSynchronize()
    finally:
        cupy.cuda.runtime.ipcCloseMemHandle(ptr)
    print(f"cupy_ipc: wrote {value} into {n} bytes", flush=True)


def export(n, value):
    ptr = cupy.cuda.runtime.malloc(n)
    try:
        cupy.cuda.runtime.memset(ptr, value, n)
        cupy.cuda.runtime.deviceSynchronize()
        print(cupy.cuda.runtime.ipcGetMemHandle(ptr).hex(), flush=True)
        sys.stdin.readline()
    finally:
        cupy.cuda.runtime.free(ptr)


def main(argv):
    cupy.cuda.Device(0).use()
    if argv[:1] == ["open-and-write"] and len(argv) == 5:
        open_and_write(argv[1], int(argv[2]), int(argv[3]), int(argv[4]))
    elif argv[:1] == ["export"] and len(argv) == 3:
        export(int(argv[1]), int(argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
