"""NCCL from Python through ctypes: a communicator that Java ranks of cudaipc4j can join.

The same facts as the Java binding (``cudaipc4j-nccl``): ``ncclConfig_t`` of NCCL 2.28 (80 bytes), non-blocking
communicators polled with a deadline, the unique id as 128 bytes by value. Every rank of a communicator must load the
same NCCL release: :func:`default_library` is the NCCL torch brings where torch has one, so a Java rank that joins
names the same file (``CUDAIPC4J_NCCL_LIBRARY``). ctypes and the standard library only; torch is imported only by
the tensor conveniences.
"""
from __future__ import annotations

import ctypes
import os
import time
from typing import Any, Callable

from . import settings
from .errors import Error, require

UNIQUE_ID_BYTES = 128
LIBRARY_ENV = settings.NCCL_LIBRARY.name
MINIMUM_VERSION = 21900

SUCCESS, IN_PROGRESS = 0, 7
RESULT_NAMES = {0: "ncclSuccess", 1: "ncclUnhandledCudaError", 2: "ncclSystemError", 3: "ncclInternalError",
                4: "ncclInvalidArgument", 5: "ncclInvalidUsage", 6: "ncclRemoteError", 7: "ncclInProgress"}

# ncclDataType_t and ncclRedOp_t
INT8, UINT8, INT32, UINT32, INT64, UINT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 = range(12)
SUM, PROD, MAX, MIN, AVG = range(5)


class NcclError(Error, RuntimeError):
    """An NCCL call that failed: the call, the ncclResult_t (unknown codes kept as numbers) and NCCL's text."""

    def __init__(self, call: str, code: int, text: str = "") -> None:
        name = RESULT_NAMES.get(code, f"ncclResult({code})")
        super().__init__(f"{call} failed: {name}" + (f": {text}" if text else ""))
        self.call, self.code = call, code


class AbortedError(Error, RuntimeError):
    """A communicator that was aborted, on request (a peer's fault) or after a failure; the message says why."""


class DeadlineError(AbortedError, TimeoutError):
    """Work or a call that did not finish within its deadline: the communicator is aborted."""


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * UNIQUE_ID_BYTES)]


class Config(ctypes.Structure):
    """``ncclConfig_t`` as NCCL 2.28 declares it (tag ncclConfig_v22800)."""
    _fields_ = [("size", ctypes.c_size_t), ("magic", ctypes.c_uint), ("version", ctypes.c_uint),
                ("blocking", ctypes.c_int), ("cgaClusterSize", ctypes.c_int), ("minCTAs", ctypes.c_int),
                ("maxCTAs", ctypes.c_int), ("netName", ctypes.c_char_p), ("splitShare", ctypes.c_int),
                ("trafficClass", ctypes.c_int), ("commName", ctypes.c_char_p), ("collnetEnable", ctypes.c_int),
                ("CTAPolicy", ctypes.c_int), ("shrinkShare", ctypes.c_int), ("nvlsCTAs", ctypes.c_int),
                ("nChannelsPerNetPeer", ctypes.c_int), ("nvlinkCentricSched", ctypes.c_int)]

    @classmethod
    def initializer(cls) -> "Config":
        """What NCCL_CONFIG_INITIALIZER makes: every int field undefined (INT_MIN), every pointer NULL."""
        c = cls()
        c.size, c.magic, c.version = ctypes.sizeof(cls), 0xcafebeef, 22800
        for name, kind in cls._fields_[3:]:
            if kind is ctypes.c_int:
                setattr(c, name, -2 ** 31)
        return c


_P, _I, _S = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
# Each function once: name -> (restype, argtypes), as nccl.h declares it.
FUNCTIONS: dict[str, tuple[Any, list[Any]]] = {
    "ncclGetVersion": (_I, [ctypes.POINTER(_I)]),
    "ncclGetUniqueId": (_I, [ctypes.POINTER(UniqueId)]),
    "ncclGetErrorString": (ctypes.c_char_p, [_I]),
    "ncclGetLastError": (ctypes.c_char_p, [_P]),
    "ncclCommInitRankConfig": (_I, [ctypes.POINTER(_P), _I, UniqueId, _I, ctypes.POINTER(Config)]),
    "ncclCommGetAsyncError": (_I, [_P, ctypes.POINTER(_I)]),
    "ncclCommFinalize": (_I, [_P]),
    "ncclCommDestroy": (_I, [_P]),
    "ncclCommAbort": (_I, [_P]),
    "ncclBroadcast": (_I, [_P, _P, _S, _I, _I, _P, _P]),
    "ncclAllReduce": (_I, [_P, _P, _S, _I, _I, _P, _P]),
    "ncclSend": (_I, [_P, _S, _I, _I, _P, _P]),
    "ncclRecv": (_I, [_P, _S, _I, _I, _P, _P]),
    "ncclGroupStart": (_I, []),
    "ncclGroupEnd": (_I, []),
}


def default_library(environ: dict[str, str] | None = None) -> str:
    """``CUDAIPC4J_NCCL_LIBRARY`` when set; else the libnccl.so.2 of the ``nvidia-nccl`` wheel torch brings, when
    installed; else ``libnccl.so.2`` by name."""
    named = settings.NCCL_LIBRARY.raw(environ)
    if named:
        return named
    try:
        import nvidia.nccl as wheel  # the wheel torch depends on; a namespace package
        for folder in list(getattr(wheel, "__path__", [])):
            candidate = os.path.join(folder, "lib", "libnccl.so.2")
            if os.path.exists(candidate):
                return candidate
    except ImportError:
        pass
    return settings.NCCL_LIBRARY.default


def decode_version(code: int) -> str:
    """22809 -> '2.28.9'."""
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}"


class Nccl:
    """One loaded NCCL library of a supported version."""

    def __init__(self, library: str | None = None) -> None:
        self.library = library or default_library()
        try:
            self._lib = ctypes.CDLL(self.library)
        except OSError as e:
            raise NcclError("dlopen", -1, f"cannot load NCCL from {self.library} ({e}); name it in {LIBRARY_ENV}")
        self._functions: dict[str, Callable[..., Any]] = {}
        version = ctypes.c_int()
        self._check("ncclGetVersion", ctypes.byref(version))
        self.version = version.value
        if self.version < MINIMUM_VERSION:
            raise NcclError("ncclGetVersion", -1, f"{self.library} is NCCL {decode_version(self.version)}; "
                            f"cudaipc4j needs {decode_version(MINIMUM_VERSION)} or later")

    def function(self, name: str) -> Callable[..., Any]:
        f = self._functions.get(name)
        if f is None:
            restype, argtypes = FUNCTIONS[name]
            try:
                f = getattr(self._lib, name)
            except AttributeError:
                raise NcclError(name, -1, f"{self.library} has no {name}") from None
            f.restype, f.argtypes = restype, argtypes
            self._functions[name] = f
        return f

    def call(self, name: str, *args: Any) -> int:
        return int(self.function(name)(*args))

    def _check(self, name: str, *args: Any) -> None:
        r = self.call(name, *args)
        if r != SUCCESS:
            raise self.error(name, r)

    def error(self, name: str, code: int, comm: int | None = None) -> NcclError:
        text = (self.function("ncclGetErrorString")(code) or b"").decode(errors="replace")
        if comm:
            last = (self.function("ncclGetLastError")(comm) or b"").decode(errors="replace")
            text = f"{text} ({last})" if last else text
        return NcclError(name, code, text)

    def new_unique_id(self) -> bytes:
        """128 bytes from ncclGetUniqueId: this process then hosts NCCL's bootstrap until every rank has joined."""
        uid = UniqueId()
        self._check("ncclGetUniqueId", ctypes.byref(uid))
        return bytes(bytearray(uid.internal))


class Communicator:
    """A non-blocking NCCL communicator of one rank on the current CUDA device (torch's, when torch set it)."""

    def __init__(self, nccl: Nccl, unique_id: bytes, rank: int, size: int, timeout: float = 60.0,
                 name: str | None = None) -> None:
        if len(unique_id) != UNIQUE_ID_BYTES:
            raise ValueError(f"an NCCL unique id is {UNIQUE_ID_BYTES} bytes, got {len(unique_id)}")
        if not 0 <= rank < size:
            raise ValueError(f"rank {rank} of {size} is not a rank of a communicator")
        self.nccl, self.rank, self.size, self.timeout = nccl, rank, size, timeout
        self._name = name.encode() if name else None
        config = Config.initializer()
        config.blocking = 0
        config.commName = self._name
        uid = UniqueId()
        ctypes.memmove(uid.internal, unique_id, UNIQUE_ID_BYTES)
        comm = ctypes.c_void_p()
        r = nccl.call("ncclCommInitRankConfig", ctypes.byref(comm), size, uid, rank, ctypes.byref(config))
        self._comm = comm.value
        self._aborted: str | None = None
        self._abort_request: str | None = None
        if r not in (SUCCESS, IN_PROGRESS):
            err = nccl.error("ncclCommInitRankConfig", r, self._comm)
            self.abort(str(err))
            raise err
        self._wait_ready("ncclCommInitRankConfig")

    def async_error(self) -> int:
        state = ctypes.c_int()
        r = self.nccl.call("ncclCommGetAsyncError", self._comm, ctypes.byref(state))
        return r if r != SUCCESS else state.value

    def request_abort(self, reason: str) -> None:
        """Asks the thread that waits on this communicator to abort it (NCCL allows no other call meanwhile)."""
        self._abort_request = reason

    def _check_request(self) -> None:
        if self._abort_request:
            self.abort(self._abort_request)
            raise AbortedError(f"communicator aborted: {self._abort_request}")

    def _wait_ready(self, call: str) -> None:
        """Polls until NCCL has finished taking ``call``, which returned ``ncclInProgress``."""
        self._poll(None, call, call, self.timeout, 0.0002)

    def _poll(self, done: Callable[[], bool] | None, call: str, what: str, timeout: float, pause: float) -> None:
        """Polls until ``done`` says so or, without it, until NCCL's state is success; an abort request ends the
        wait first; NCCL's error (reported as ``call``'s) and the deadline abort the communicator."""
        deadline = time.monotonic() + timeout
        while done is None or not done():
            self._check_request()
            state = self.async_error()
            if state == SUCCESS and done is None:
                return
            if state not in (SUCCESS, IN_PROGRESS):
                err = self.nccl.error(call, state, self._comm)
                self.abort(str(err))
                raise err
            if time.monotonic() > deadline:
                reason = f"{what} did not finish within {timeout:.1f} s"
                self.abort(reason)
                raise DeadlineError(f"rank {self.rank}: {reason}; aborted")
            time.sleep(pause)

    def _enqueue(self, call: str, *args: Any) -> None:
        if self._aborted:
            raise AbortedError(f"communicator aborted: {self._aborted}")
        r = self.nccl.call(call, *args)
        if r == IN_PROGRESS:
            self._wait_ready(call)
        elif r != SUCCESS:
            err = self.nccl.error(call, r, self._comm)
            self.abort(str(err))
            raise err

    def broadcast(self, send: int, recv: int, count: int, dtype: int, root: int, stream: int) -> None:
        self._enqueue("ncclBroadcast", send, recv, count, dtype, root, self._comm, stream)

    def all_reduce(self, send: int, recv: int, count: int, dtype: int, op: int, stream: int) -> None:
        self._enqueue("ncclAllReduce", send, recv, count, dtype, op, self._comm, stream)

    def send(self, buffer: int, count: int, dtype: int, peer: int, stream: int) -> None:
        self._enqueue("ncclSend", buffer, count, dtype, peer, self._comm, stream)

    def recv(self, buffer: int, count: int, dtype: int, peer: int, stream: int) -> None:
        self._enqueue("ncclRecv", buffer, count, dtype, peer, self._comm, stream)

    def wait(self, done: Callable[[], bool], timeout: float | None = None) -> None:
        """Polls ``done`` (a stream's query) and the communicator's error until done; aborts on error or deadline."""
        self._poll(done, "ncclCommGetAsyncError", "NCCL work", self.timeout if timeout is None else timeout, 0.00005)

    def abort(self, reason: str) -> None:
        if self._aborted or not self._comm:
            return
        self._aborted = reason
        self.nccl.call("ncclCommAbort", self._comm)

    def close(self) -> None:
        """Finalises and destroys the communicator (an aborted one is already gone). Idempotent."""
        if not self._comm:
            return
        try:
            if not self._aborted:
                try:
                    r = self.nccl.call("ncclCommFinalize", self._comm)
                    if r == IN_PROGRESS:
                        self._wait_ready("ncclCommFinalize")
                    elif r != SUCCESS:
                        raise self.nccl.error("ncclCommFinalize", r, self._comm)
                    if not self._aborted:
                        self.nccl._check("ncclCommDestroy", self._comm)
                except BaseException:
                    # a communicator that could not be finalised or destroyed is still there: abort frees it
                    self.abort("its close failed")
                    raise
        finally:
            self._comm = None

    def __enter__(self) -> "Communicator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def torch_dtype(dtype: Any) -> int:
    """The ncclDataType_t of a torch dtype."""
    torch = require("torch")
    table = {torch.int8: INT8, torch.uint8: UINT8, torch.int32: INT32, torch.int64: INT64, torch.float16: FLOAT16,
             torch.float32: FLOAT32, torch.float64: FLOAT64, torch.bfloat16: BFLOAT16, torch.bool: UINT8}
    for name, code in (("float8_e4m3fn", FLOAT8_E4M3), ("float8_e5m2", FLOAT8_E5M2), ("uint32", UINT32),
                       ("uint64", UINT64)):
        if hasattr(torch, name):
            table[getattr(torch, name)] = code
    if dtype not in table:
        raise ValueError(f"NCCL has no type for {dtype}")
    return table[dtype]


def broadcast_tensor(comm: Communicator, tensor: Any, root: int) -> None:
    """Broadcasts a contiguous CUDA tensor in place from ``root`` on torch's current stream, and waits for it."""
    torch = require("torch")
    if not tensor.is_contiguous():
        raise ValueError("NCCL moves contiguous tensors only")
    stream = torch.cuda.current_stream(tensor.device)
    comm.broadcast(tensor.data_ptr(), tensor.data_ptr(), tensor.numel(), torch_dtype(tensor.dtype), root,
                   stream.cuda_stream)
    comm.wait(stream.query)


class Rank:
    """One rank joined through the rendezvous (``cudaipc4j.rendezvous``): its group, which watches the other ranks,
    and its communicator. A peer's fault asks the communicator to abort (the next wait raises) and, with
    ``exit_on_fault``, prints one line and ends the process with status 1 half a second later."""

    def __init__(self, group: Any, communicator: Communicator) -> None:
        self.group, self.communicator = group, communicator

    def close(self) -> None:
        try:
            self.communicator.close()
        finally:
            self.group.close()

    def __enter__(self) -> "Rank":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def join_launched(launch: Any = None, nccl: Nccl | None = None, timeout: float = 60.0, name: str | None = None,
                  exit_on_fault: bool = True, **rendezvous_options: Any) -> Rank:
    """Joins the job this process's launcher started (``cudaipc4j.launch.from_environ()`` unless given): the
    rendezvous checks every rank's NCCL version against rank 0's, rank 0 makes the unique id and hands it out, and
    every rank makes its communicator on the current CUDA device. Java ranks of cudaipc4j join the same way."""
    import sys
    import threading
    from . import launch as launching
    from . import rendezvous
    lib = nccl or Nccl()
    env = launch or launching.from_environ()
    group = rendezvous.join_launched(env, nccl_version=lib.version, payload=lib.new_unique_id,
                                     **rendezvous_options)
    try:
        comm = Communicator(lib, group.payload, group.rank, group.size, timeout=timeout, name=name)
    except BaseException:
        group.close()
        raise

    def on_fault(fault: Any) -> None:
        line = f"rank {group.rank} ends: {fault.message}"
        comm.request_abort(line)
        if exit_on_fault:
            print(f"cudaipc4j: watchdog: {line}", file=sys.stderr, flush=True)
            threading.Timer(0.5, os._exit, (1,)).start()

    group.on_fault(on_fault)
    return Rank(group, comm)
