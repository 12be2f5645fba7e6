"""A stand-in for cuda.bindings.driver that records the calls opening.py makes, so that the order of imports,
mappings and releases (and the fds' fate) is tested without a GPU. Each call returns (CUDA_SUCCESS, value)."""
import ctypes
import enum
import types


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1


class _Struct:
    SIZE = 64

    def __init__(self):
        self._buffer = ctypes.create_string_buffer(self.SIZE)

    def getPtr(self):
        return ctypes.addressof(self._buffer)

    @property
    def raw(self):
        return self._buffer.raw


class _Namespace(types.SimpleNamespace):
    pass


def install(test, fail=None):
    """Puts a fake driver in sys.modules for the support.TestCase ``test``; returns its call log. ``fail`` names a call
    that returns an error."""
    calls = []
    counter = iter(range(0x1000, 0x100000, 0x100))

    def call(name, value=None):
        def f(*args):
            calls.append((name, args))
            if name == fail:
                return (CUresult.CUDA_ERROR_INVALID_VALUE,) + ((None,) if value is not None else ())
            result = value(*args) if callable(value) else value
            return (CUresult.CUDA_SUCCESS,) if value is None else (CUresult.CUDA_SUCCESS, result)
        return f

    d = types.ModuleType("cuda.bindings.driver")
    d.CUresult = CUresult
    d.cuGetErrorName = lambda e: (CUresult.CUDA_SUCCESS, e.name.encode())
    d.cuGetErrorString = lambda e: (CUresult.CUDA_SUCCESS, b"invalid argument")
    d.CUipcMemHandle = type("CUipcMemHandle", (_Struct,), {})
    d.CUipcEventHandle = type("CUipcEventHandle", (_Struct,), {})
    d.CUmemPoolPtrExportData = type("CUmemPoolPtrExportData", (_Struct,), {})
    d.CUipcMem_flags = _Namespace(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS=1)
    d.CUmemAllocationHandleType = _Namespace(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR=1, CU_MEM_HANDLE_TYPE_FABRIC=8)
    d.CUmemAllocationGranularity_flags = _Namespace(CU_MEM_ALLOC_GRANULARITY_MINIMUM=0)
    d.CUmemLocationType = _Namespace(CU_MEM_LOCATION_TYPE_DEVICE=1)
    d.CUmemAccess_flags = _Namespace(CU_MEM_ACCESS_FLAGS_PROT_READWRITE=3)
    d.CUmemAccessDesc = lambda: _Namespace(location=_Namespace(type=None, id=None), flags=None)
    d.CUstream = type("CUstream", (), {"__init__": lambda self, v=0: setattr(self, "value", v),
                                       "__eq__": lambda self, o: getattr(o, "value", None) == self.value})
    for name in ("cuInit", "cuCtxPushCurrent", "cuCtxSynchronize", "cuIpcCloseMemHandle", "cuMemMap", "cuMemSetAccess",
                 "cuMemUnmap", "cuMemAddressFree", "cuMemRelease", "cuMemFree", "cuMemPoolDestroy",
                 "cuStreamWaitEvent", "cuEventDestroy"):
        setattr(d, name, call(name))
    d.cuCtxPopCurrent = call("cuCtxPopCurrent", lambda: "popped")
    d.cuDeviceGet = call("cuDeviceGet", lambda i: ("device", i))
    d.cuDevicePrimaryCtxRetain = call("cuDevicePrimaryCtxRetain", lambda dev: ("context", dev))
    d.cuIpcOpenMemHandle = call("cuIpcOpenMemHandle", lambda h, f: next(counter))
    d.cuIpcOpenEventHandle = call("cuIpcOpenEventHandle", lambda h: "event")
    d.cuMemImportFromShareableHandle = call("cuMemImportFromShareableHandle", lambda h, t: "allocation")
    d.cuMemGetAllocationPropertiesFromHandle = call("cuMemGetAllocationPropertiesFromHandle", lambda h: "prop")
    d.cuMemGetAllocationGranularity = call("cuMemGetAllocationGranularity", lambda p, o: 2 << 20)
    d.cuMemAddressReserve = call("cuMemAddressReserve", lambda size, align, addr, flags: next(counter))
    d.cuMemPoolImportFromShareableHandle = call("cuMemPoolImportFromShareableHandle", lambda h, t, f: "pool")
    d.cuMemPoolImportPointer = call("cuMemPoolImportPointer", lambda pool, data: next(counter))
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = d
    cuda = types.ModuleType("cuda")
    cuda.bindings = bindings
    test.patch_modules({"cuda": cuda, "cuda.bindings": bindings, "cuda.bindings.driver": d})
    return calls


def names(calls, skip=("cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain", "cuCtxPushCurrent", "cuCtxPopCurrent")):
    return [n for n, _ in calls if n not in skip]
