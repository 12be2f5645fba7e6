"""open()'s life cycle against a recording stand-in of the CUDA driver (fake_driver.py): what is imported, mapped,
cached, and released in which order when the tensor dies, and that every fd is closed. No GPU needed."""
import gc
import os
import struct
from dataclasses import replace

import pytest

import fake_driver
from cudaipc4j import descriptor as d
from cudaipc4j import holders, opening
from cudaipc4j._cuda import CudaError
from golden_cases import CASES


class FakeTensor:
    """Stands for the torch tensor: it holds the mapping as torch's storage holds the array interface."""

    def __init__(self, mapping, dtype, shape, strides, offset):
        self.mapping, self.dtype, self.shape, self.strides, self.offset = mapping, dtype, shape, strides, offset


@pytest.fixture
def driver(monkeypatch):
    calls = fake_driver.install(monkeypatch)
    monkeypatch.setattr(opening, "_torch_tensor", FakeTensor)
    monkeypatch.setattr(opening.devices, "ordinal_of", lambda uuid: {CASES["legacy"].device_uuid: 0}[uuid])
    monkeypatch.setattr(opening, "_contexts", {})
    opening._legacy.clear()
    opening._pools.clear()
    opening._cleanup_errors.clear()
    yield calls
    gc.collect()
    assert not opening._legacy and not opening._pools, "a mapping outlived its tensor"


def open_fds():
    return set(os.listdir("/proc/self/fd"))


def a_pipe_fd():
    r, w = os.pipe()
    os.close(w)
    return r


def test_the_primary_context_is_retained_once(driver):
    a = opening.open(CASES["legacy"])
    b = opening.open(CASES["vmm-fabric"])
    del a, b
    gc.collect()
    assert [n for n, _ in driver].count("cuDevicePrimaryCtxRetain") == 1


def test_legacy_opens_once_per_handle_and_closes_after_the_last_tensor(driver):
    t1 = opening.open(CASES["legacy-tensor-event"], stream=7)
    t2 = opening.open(CASES["legacy"])
    assert t1.mapping.ptr == t2.mapping.ptr and (t1.dtype, t1.shape, t1.offset) == ("bfloat16", (1024, 4), 3)
    assert fake_driver.names(driver) == ["cuIpcOpenMemHandle", "cuIpcOpenEventHandle", "cuStreamWaitEvent",
                                         "cuEventDestroy"]
    handle = driver[[n for n, _ in driver].index("cuIpcOpenMemHandle")][1][0]
    assert handle.raw == CASES["legacy"].ipc_handle
    assert driver[[n for n, _ in driver].index("cuStreamWaitEvent")][1][0].value == 7
    driver.clear()
    del t1
    gc.collect()
    assert fake_driver.names(driver) == ["cuCtxSynchronize"]  # still open for t2
    del t2
    gc.collect()
    assert fake_driver.names(driver) == ["cuCtxSynchronize", "cuCtxSynchronize", "cuIpcCloseMemHandle"]


def test_vmm_maps_whole_granules_closes_its_fd_and_unmaps_in_reverse(driver):
    before = open_fds()
    desc = replace(CASES["vmm-fd"], exporter=d.Exporter(4242, 0, 3), bytes=(2 << 20) + 5, fd_numbers=None)
    t = opening.open(desc, fds=[a_pipe_fd()])
    assert open_fds() == before, "the fd is closed once imported"
    assert fake_driver.names(driver) == ["cuMemImportFromShareableHandle", "cuMemGetAllocationPropertiesFromHandle",
                                         "cuMemGetAllocationGranularity", "cuMemAddressReserve", "cuMemMap",
                                         "cuMemSetAccess"]
    assert dict(driver)["cuMemAddressReserve"][0] == 4 << 20
    assert (t.dtype, t.shape) == ("uint8", ((2 << 20) + 5,))
    driver.clear()
    del t
    gc.collect()
    assert fake_driver.names(driver) == ["cuCtxSynchronize", "cuMemUnmap", "cuMemAddressFree", "cuMemRelease"]


def test_a_pool_and_its_pointer_are_imported_once_and_freed_after_their_last_user(driver):
    # The driver gives a second import of one export the same address, and refuses its second cuMemFree.
    desc = replace(CASES["pool-fd"], tensor=None)
    before = open_fds()
    a = opening.open(desc, fds=[a_pipe_fd()])
    b = opening.open(desc, fds=[a_pipe_fd()])  # the second fd is not needed: closed
    assert open_fds() == before
    assert fake_driver.names(driver).count("cuMemPoolImportFromShareableHandle") == 1
    assert fake_driver.names(driver).count("cuMemPoolImportPointer") == 1
    driver.clear()
    del a
    gc.collect()
    assert fake_driver.names(driver) == ["cuCtxSynchronize"]
    del b
    gc.collect()
    assert fake_driver.names(driver) == ["cuCtxSynchronize", "cuCtxSynchronize", "cuMemFree", "cuMemPoolDestroy"]


def test_the_lease_is_held_while_the_tensor_lives_and_released_after_the_unmap(driver, tmp_path, monkeypatch):
    name = "cudaipc4j-1-00aa-holders"
    data = bytearray(holders.HEADER + 4 * holders.ENTRY)
    struct.pack_into("<iQ", data, 8, 4, 0)
    struct.pack_into("<Q", data, 0, holders.MAGIC)
    (tmp_path / name).write_bytes(bytes(data))
    real = holders.HolderTable
    monkeypatch.setattr(holders, "HolderTable", lambda n: real(n, str(tmp_path)))
    monkeypatch.setattr(opening, "_tables", {})
    table = real(name, str(tmp_path))
    desc = replace(CASES["legacy"], exporter=d.Exporter(4242, 0, 77, name))
    t = opening.open(desc)
    assert table.holders(77) == [os.getpid()]
    order = []
    monkeypatch.setattr(fake_driver.sys.modules["cuda.bindings.driver"], "cuIpcCloseMemHandle",
                        lambda ptr: (order.append(("close", table.holders(77))), (fake_driver.CUresult.CUDA_SUCCESS,))[1])
    del t
    gc.collect()
    assert order == [("close", [os.getpid()])], "unmapped while the lease was still held"
    assert table.holders(77) == []
    table.close()
    for t in opening._tables.values():
        t.close()


def test_failures_undo_what_was_done_and_close_the_fds(monkeypatch):
    calls = fake_driver.install(monkeypatch, fail="cuMemMap")
    monkeypatch.setattr(opening, "_contexts", {})
    monkeypatch.setattr(opening.devices, "ordinal_of", lambda uuid: 0)
    before = open_fds()
    desc = replace(CASES["vmm-fd"], exporter=d.Exporter(4242, 0, 3), fd_numbers=None)
    with pytest.raises(CudaError, match="cuMemMap failed: CUDA_ERROR_INVALID_VALUE \\(invalid argument\\)"):
        opening.open(desc, fds=[a_pipe_fd()])
    assert open_fds() == before
    assert fake_driver.names(calls)[-3:] == ["cuCtxSynchronize", "cuMemAddressFree", "cuMemRelease"]


def test_bad_calls_are_refused_and_their_fds_closed(driver):
    before = open_fds()
    with pytest.raises(ValueError, match="says 1 fd\\(s\\), 2 given"):
        opening.open(replace(CASES["vmm-fd"], fd_numbers=None), fds=[a_pipe_fd(), a_pipe_fd()])
    with pytest.raises(ValueError, match="needs its fds"):
        opening.open(replace(CASES["vmm-fd"], fd_numbers=None))
    with pytest.raises(ValueError, match="pass device="):
        opening.open(replace(CASES["torch-e"]), fds=[a_pipe_fd()])
    with pytest.raises(ValueError, match="like must be"):
        opening.open(CASES["legacy"], like="numpy", fds=[a_pipe_fd()])
    with pytest.raises(d.DescriptorError):
        opening.open('{"cudaipc4j_descriptor":"2.0"}', fds=[a_pipe_fd()])
    assert open_fds() == before


def test_another_pid_namespace_is_refused_before_pidfd(driver):
    desc = replace(CASES["vmm-fd"], exporter=d.Exporter(4242, 1, 3))
    with pytest.raises(OSError, match="another PID namespace; receive its fds over the descriptor socket") as e:
        opening.open(desc)
    assert str(e.value).startswith("pidfd_getfd: the exporter (pid 4242)")


def test_a_failed_release_is_reported_by_the_next_open(monkeypatch):
    calls = fake_driver.install(monkeypatch, fail="cuIpcCloseMemHandle")
    monkeypatch.setattr(opening, "_contexts", {})
    monkeypatch.setattr(opening, "_torch_tensor", FakeTensor)
    monkeypatch.setattr(opening.devices, "ordinal_of", lambda uuid: 0)
    opening._cleanup_errors.clear()
    t = opening.open(CASES["legacy"])
    del t
    gc.collect()
    assert calls and len(opening._cleanup_errors) == 1
    with pytest.raises(RuntimeError, match="an earlier release failed: cuIpcCloseMemHandle failed"):
        opening.open(CASES["legacy"])
    assert not opening._cleanup_errors
