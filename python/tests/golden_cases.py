"""The golden cases of docs/interop-format.md ("Golden cases"): the same values the Java side writes, so both sides'
files are equal byte for byte."""
from cudaipc4j import torch_handle
from cudaipc4j.descriptor import Descriptor, Event, Exporter, Tensor, TorchShare

UUID = "GPU-01234567-89ab-cdef-0123-456789abcdef"
NS = 4026531836
IPC = bytes(range(0, 64))
FABRIC = bytes(range(64, 128))
POINTER = bytes(range(128, 192))
EVENT = bytes(range(192, 256))

CASES = {
    "legacy": Descriptor(kind="legacy", device_uuid=UUID, bytes=33554437, exporter=Exporter(4242, NS, 1),
                         ipc_handle=IPC),
    "legacy-tensor-event": Descriptor(
        kind="legacy", device_uuid=UUID, bytes=4194304, exporter=Exporter(4242, NS, 2), ipc_handle=IPC,
        tensor=Tensor("bfloat16", (1024, 4), (1024, 1), 3), event=Event(EVENT, True)),
    "vmm-fd": Descriptor(kind="vmm", device_uuid=UUID, bytes=2097152,
                         exporter=Exporter(4242, NS, 3, "cudaipc4j-4242-0011223344556677-holders"),
                         handle_type="posix_fd", fds=1, fd_numbers=(45,)),
    "vmm-fabric": Descriptor(kind="vmm", device_uuid=UUID, bytes=4194304, exporter=Exporter(4242, NS, 4),
                             handle_type="fabric", fabric_handle=FABRIC),
    "pool-fd": Descriptor(kind="pool", device_uuid=UUID, bytes=1048576, exporter=Exporter(4242, NS, 5),
                          handle_type="posix_fd", fds=1, pool_id=7, pointer_export=POINTER,
                          tensor=Tensor("float8_e4m3fn", (0,), (1,), 0)),
    "torch-c": Descriptor(
        kind="torch", device_uuid=UUID, bytes=4194304, exporter=Exporter(459, NS, 6),
        torch=TorchShare(torch_handle.build_c(IPC, 2), 4194304, 0, "/torch_459_1234567_0", 0, 0),
        tensor=Tensor("float32", (1024, 1024), (1024, 1), 0), event=Event(EVENT, True)),
    "torch-e": Descriptor(
        kind="torch", bytes=8388608, exporter=Exporter(459, NS, 7),
        torch=TorchShare(torch_handle.build_e(459, 20971520, fds=[45], version=2), 8388608, 2097152,
                         "/torch_459_1234567_0", 1, 0),
        tensor=Tensor("bfloat16", (2048, 2048), (2048, 1), 0)),
}
