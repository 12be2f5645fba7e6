"""The Python side of PythonHandoffExample: reads a buffer a JVM exported, in place, and writes back.

  read_buffer.py HANDLE_HEX BYTES VALUE

Opens the 64-byte legacy IPC handle with CuPy, wraps the memory as a PyTorch tensor without a copy (DLPack), checks
that every byte is VALUE, adds 1 to every byte, synchronizes and closes the mapping. Without PyTorch it reads
through CuPy alone. Exit 0 on success, 1 with one line on stderr when a check fails.
"""
import sys

import cupy


def main(handle_hex, n, value):
    handle = bytes.fromhex(handle_hex)
    ptr = cupy.cuda.runtime.ipcOpenMemHandle(handle)
    try:
        memory = cupy.cuda.UnownedMemory(ptr, n, owner=None)
        array = cupy.ndarray((n,), dtype=cupy.uint8, memptr=cupy.cuda.MemoryPointer(memory, 0))
        try:
            import torch
            tensor = torch.from_dlpack(array)
            if tensor.data_ptr() != ptr:
                sys.exit("read_buffer: the tensor is a copy, not the exported memory")
            bad = int((tensor != value).sum().item())
            reader = "PyTorch " + torch.__version__
            tensor.add_(1)
            del tensor
        except ImportError:
            bad = int((array != value).sum())
            reader = "CuPy " + cupy.__version__
            array += 1
        if bad:
            sys.exit(f"read_buffer: {bad} of {n} bytes differ from {value}")
        cupy.cuda.runtime.deviceSynchronize()
        del array, memory
    finally:
        cupy.cuda.runtime.ipcCloseMemHandle(ptr)
    print(f"{reader} read {n} bytes of {value} in place and added 1")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
