"""open()'s life cycle against a recording stand-in of the CUDA driver (fake_driver.py): what is imported, mapped,
cached, and released in which order when the tensor dies, and that every fd is closed. No GPU needed."""
import contextlib
import gc
import os
import struct
import sys
import types
from dataclasses import replace
from unittest import mock

from cudaipc4j import descriptor as d
from cudaipc4j import holders, opening, torch_counters, torch_leases
from cudaipc4j._cuda import CudaError

from . import fake_driver, support
from .golden_cases import CASES


class FakeTensor:
    """Stands for the torch tensor: it holds the mapping as torch's storage holds the array interface."""

    def __init__(self, mapping, dtype, shape, strides, offset):
        self.mapping, self.dtype, self.shape, self.strides, self.offset = mapping, dtype, shape, strides, offset


def open_fds():
    return set(os.listdir("/proc/self/fd"))


def a_pipe_fd():
    r, w = os.pipe()
    os.close(w)
    return r


def torch_counter_file(test, slots):
    """A counter file laid out as torch's (torch_counters.DIRECTORY pointed at a folder of the test's); returns a slot
    reader."""
    folder = test.temporary_directory()
    test.enterContext(mock.patch.object(torch_counters, "DIRECTORY", str(folder)))
    data = bytearray(torch_counters.FILE_BYTES)
    struct.pack_into("<i", data, 0, 1)  # the producer's process count
    for i, v in slots.items():
        struct.pack_into("<q", data, torch_counters.HEADER + 8 * i, v)
    path = folder / "torch_459_1234567_0"
    path.write_bytes(bytes(data))
    header = lambda: struct.unpack_from("<i", path.read_bytes(), 0)[0]  # noqa: E731
    return (lambda i: struct.unpack_from("<q", path.read_bytes(), torch_counters.HEADER + 8 * i)[0]), header


def fake_torch(test, rebuild):
    """Just enough of torch for the torch path up to and into its reader, whose rebuild_cuda_tensor is ``rebuild``."""
    torch = types.ModuleType("torch")
    torch.__version__ = "fake"
    torch.dtype = type("dtype", (), {})
    torch.float32 = torch.dtype()
    torch.Tensor, torch.Size = object, tuple
    torch.storage = types.SimpleNamespace(TypedStorage=object)
    torch.cuda = types.SimpleNamespace(current_stream=lambda i: types.SimpleNamespace(cuda_stream=9),
                                       device=lambda i: contextlib.nullcontext(), device_count=lambda: 1)
    multiprocessing = types.ModuleType("torch.multiprocessing")
    reductions = types.ModuleType("torch.multiprocessing.reductions")
    reductions.rebuild_cuda_tensor = rebuild
    multiprocessing.reductions = reductions
    torch.multiprocessing = multiprocessing
    test.patch_modules({"torch": torch, "torch.multiprocessing": multiprocessing,
                        "torch.multiprocessing.reductions": reductions})
    return torch


class OpenTest(support.TestCase):
    """Against the recording driver; after each test nothing stays mapped and no context is left current."""

    def setUp(self):
        self.driver = fake_driver.install(self)
        self.enterContext(mock.patch.object(opening, "_torch_tensor", FakeTensor))
        self.enterContext(mock.patch.object(opening.devices, "ordinal_of",
                                            lambda uuid: {CASES["legacy"].device_uuid: 0}[uuid]))
        self.enterContext(mock.patch.object(opening, "_contexts", {}))
        self.leases = torch_leases.TorchLeases(watch=False, first_page=1)
        self.addCleanup(self.leases._book.close)
        self.enterContext(mock.patch.object(torch_leases, "_default", self.leases))
        opening._legacy.clear()
        opening._pools.clear()
        opening._pool_pointers.clear()
        self.enterContext(mock.patch.object(opening, "_tables", {}))
        opening._cleanup_errors.clear()
        self.addCleanup(self._nothing_left)  # added last: runs first, with the stand-ins still in place

    def _nothing_left(self):
        gc.collect()
        assert not (opening._legacy or opening._pools or opening._pool_pointers or opening._tables), \
            "a mapping outlived its tensor"
        names = [n for n, _ in self.driver]
        assert names.count("cuCtxPushCurrent") == names.count("cuCtxPopCurrent"), "a context was left current"

    def test_the_primary_context_is_retained_once(self):
        a = opening.open(CASES["legacy"])
        b = opening.open(CASES["vmm-fabric"])
        del a, b
        gc.collect()
        assert [n for n, _ in self.driver].count("cuDevicePrimaryCtxRetain") == 1

    def test_legacy_opens_once_per_handle_and_closes_after_the_last_tensor(self):
        driver = self.driver
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

    def test_vmm_maps_whole_granules_closes_its_fd_and_unmaps_in_reverse(self):
        driver = self.driver
        before = open_fds()
        desc = replace(CASES["vmm-fd"], exporter=d.Exporter(4242, 0, 3), bytes=(2 << 20) + 5, fd_numbers=None)
        t = opening.open(desc, fds=[a_pipe_fd()])
        assert open_fds() == before, "the fd is closed once imported"
        assert fake_driver.names(driver) == ["cuMemImportFromShareableHandle",
                                             "cuMemGetAllocationPropertiesFromHandle",
                                             "cuMemGetAllocationGranularity", "cuMemAddressReserve", "cuMemMap",
                                             "cuMemSetAccess"]
        assert dict(driver)["cuMemAddressReserve"][0] == 4 << 20
        assert (t.dtype, t.shape) == ("uint8", ((2 << 20) + 5,))
        driver.clear()
        del t
        gc.collect()
        assert fake_driver.names(driver) == ["cuCtxSynchronize", "cuMemUnmap", "cuMemAddressFree", "cuMemRelease"]

    def test_a_pool_and_its_pointer_are_imported_once_and_freed_after_their_last_user(self):
        driver = self.driver
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
        assert fake_driver.names(driver) == ["cuCtxSynchronize", "cuCtxSynchronize", "cuMemFree",
                                             "cuMemPoolDestroy"]

    def test_the_lease_is_held_while_the_tensor_lives_and_released_after_the_unmap(self):
        folder = self.temporary_directory()
        name = "cudaipc4j-1-00000000000000aa-holders"
        data = bytearray(holders.HEADER + 4 * holders.ENTRY)
        struct.pack_into("<iQ", data, 8, 4, 0)
        struct.pack_into("<Q", data, 0, holders.MAGIC)
        (folder / name).write_bytes(bytes(data))
        real = holders.HolderTable
        self.enterContext(mock.patch.object(holders, "HolderTable", lambda n: real(n, str(folder))))
        table = real(name, str(folder))
        desc = replace(CASES["legacy"], exporter=d.Exporter(4242, 0, 77, name))
        t = opening.open(desc)
        assert table.holders(77) == [os.getpid()]
        order = []
        self.enterContext(mock.patch.object(
            sys.modules["cuda.bindings.driver"], "cuIpcCloseMemHandle",
            lambda ptr: (order.append(("close", table.holders(77))), (fake_driver.CUresult.CUDA_SUCCESS,))[1]))
        del t
        gc.collect()
        assert order == [("close", [os.getpid()])], "unmapped while the lease was still held"
        assert table.holders(77) == []
        assert not opening._tables, "the table is unmapped with its last hold"
        table.close()

    def test_bad_calls_are_refused_and_their_fds_closed(self):
        before = open_fds()
        with self.assertRaisesRegex(ValueError, "says 1 fd\\(s\\), 2 given"):
            opening.open(replace(CASES["vmm-fd"], fd_numbers=None), fds=[a_pipe_fd(), a_pipe_fd()])
        with self.assertRaisesRegex(ValueError, "needs its fds"):
            opening.open(replace(CASES["vmm-fd"], fd_numbers=None))
        with self.assertRaisesRegex(ValueError, "pass device="):
            opening.open(replace(CASES["torch-e"]), fds=[a_pipe_fd()])
        with self.assertRaisesRegex(ValueError, "like must be"):
            opening.open(CASES["legacy"], like="numpy", fds=[a_pipe_fd()])
        with self.assertRaises(d.DescriptorError):
            opening.open('{"cudaipc4j_descriptor":"2.0"}', fds=[a_pipe_fd()])
        assert open_fds() == before

    def test_another_pid_namespace_is_refused_before_pidfd(self):
        desc = replace(CASES["vmm-fd"], exporter=d.Exporter(4242, 1, 3))
        with self.assertRaisesRegex(OSError, "another PID namespace; receive its fds over the descriptor socket") \
                as e:
            opening.open(desc)
        assert str(e.exception).startswith("pidfd_getfd: the exporter (pid 4242)")

    def test_the_callers_current_context_is_back_after_each_open_and_release(self):
        t = opening.open(CASES["legacy-tensor-event"], stream=7)
        names = [n for n, _ in self.driver]
        assert "cuCtxSetCurrent" not in names
        assert names.count("cuCtxPushCurrent") == names.count("cuCtxPopCurrent") == 2  # the open, the event's wait
        assert names.index("cuCtxPushCurrent") < names.index("cuIpcOpenMemHandle") < names.index("cuCtxPopCurrent")
        self.driver.clear()
        del t
        gc.collect()
        assert [n for n, _ in self.driver] == ["cuCtxPushCurrent", "cuCtxSynchronize", "cuIpcCloseMemHandle",
                                               "cuCtxPopCurrent"]

    def test_a_torch_share_that_cannot_be_opened_gives_its_slot_back_once(self):
        slot, header = torch_counter_file(self, {0: 1, 1: 1})
        with self.assertRaisesRegex(ValueError, "like must be"):
            opening.open(CASES["torch-c"], like="numpy")
        assert slot(0) == 0
        with self.assertRaisesRegex(ValueError, "pass device="):
            opening.open(CASES["torch-e"])  # no device UUID, and none given
        assert slot(1) == 0
        self.patch_modules({"torch": None})  # a reader without torch
        slot, header = torch_counter_file(self, {0: 1})
        with self.assertRaises(ImportError):
            opening.open(CASES["torch-c"])
        assert slot(0) == 0 and header() == 1, "the slot back, the producer's process count untouched"

    def test_a_torch_share_given_to_torchs_reader_is_its_to_give_back(self):
        driver = self.driver
        slot, _ = torch_counter_file(self, {0: 1})
        taken = []

        def rebuild(*args):
            taken.append(args)
            raise RuntimeError("torch's reader failed")
        fake_torch(self, rebuild)
        with self.assertRaisesRegex(RuntimeError, "torch's reader failed"):
            opening.open(CASES["torch-c"])
        assert len(taken) == 1 and slot(0) == 1, "torch's reader had the share: it, not this open, gives it back"
        assert self.leases.held() == 0, "nor the watcher: its lease entry is dropped"
        assert fake_driver.names(driver) == ["cuIpcOpenEventHandle", "cuStreamWaitEvent", "cuEventDestroy"]
        assert driver[[n for n, _ in driver].index("cuStreamWaitEvent")][1][0].value == 9, "torch's current stream"
        with self.assertRaisesRegex(ValueError, "has no dtype bfloat16"):
            opening.open(replace(CASES["torch-c"], tensor=d.Tensor("bfloat16", (4,), (1,), 0)))
        assert slot(0) == 0 and len(taken) == 1, "refused before torch's reader: given back here"
        slot, _ = torch_counter_file(self, {0: 1})
        with self.assertRaisesRegex(ValueError, "device 3 is not one of the 1 CUDA device"):
            opening.open(replace(CASES["torch-c"], device_uuid=None), device=3)
        assert slot(0) == 0 and len(taken) == 1, "a device torch does not have: given back before its reader"

    def test_a_share_torchs_reader_takes_is_held_in_the_lease_book_while_its_storage_lives(self):
        slot, _ = torch_counter_file(self, {0: 1})
        storage = types.SimpleNamespace(alive=True)
        tensor = types.SimpleNamespace(untyped_storage=lambda: storage)
        torch = fake_torch(self, lambda *args: tensor)
        torch.multiprocessing.reductions.StorageWeakRef = lambda s: types.SimpleNamespace(expired=lambda: not s.alive)
        assert opening.open(CASES["torch-c"]) is tensor
        s = CASES["torch-c"].torch
        assert torch_leases.LeaseBook.held(self.leases._book) == [(0, s.ref_counter_file, s.ref_counter_offset)]
        assert slot(0) == 1, "held, not incremented: torch's reader gives it back"
        storage.alive = False  # torch's reader gave the slot back with the storage
        assert self.leases.hold("/torch_1_2_0", 5) == 0, "the entry is free to take again"

    def test_an_earlier_failed_release_is_raised_once_and_uses_up_no_share(self):
        slot, _ = torch_counter_file(self, {0: 1})
        opening._cleanup_errors.extend([RuntimeError("cuMemUnmap failed"), RuntimeError("cuMemRelease failed")])
        with self.assertRaisesRegex(RuntimeError, r"an earlier release failed: cuMemUnmap failed \(and 1 more of its"):
            opening.open(CASES["torch-c"])
        assert slot(0) == 1, "the share was not opened: it stays the caller's to open again"
        assert not opening._cleanup_errors, "reported once"


class FailingDriverTest(support.TestCase):
    """Against a recording driver one of whose calls fails."""

    def stand_in(self, patches, fail):
        calls = fake_driver.install(self, fail=fail)
        patches.enter_context(mock.patch.object(opening, "_contexts", {}))
        patches.enter_context(mock.patch.object(opening.devices, "ordinal_of", lambda uuid: 0))
        return calls

    def test_failures_undo_what_was_done_and_close_each_fd_once(self):
        for failing, undone in [("cuMemMap", ["cuCtxSynchronize", "cuMemAddressFree", "cuMemRelease"]),
                                ("cuMemPoolImportPointer", ["cuCtxSynchronize", "cuMemPoolDestroy"])]:
            with self.subTest(failing=failing), contextlib.ExitStack() as patches:
                calls = self.stand_in(patches, failing)
                closes = []
                real_close = os.close
                patches.enter_context(mock.patch.object(os, "close",
                                                        lambda fd: (closes.append(fd), real_close(fd))[1]))
                before = open_fds()
                case = "vmm-fd" if failing == "cuMemMap" else "pool-fd"
                desc = replace(CASES[case], exporter=d.Exporter(4242, 0, 3), fd_numbers=None)
                fd = a_pipe_fd()
                with self.assertRaisesRegex(CudaError,
                                            f"{failing} failed: CUDA_ERROR_INVALID_VALUE \\(invalid argument\\)"):
                    opening.open(desc, fds=[fd])
                assert open_fds() == before
                assert closes.count(fd) == 1, "closed more than once: the number may name another file by then"
                assert fake_driver.names(calls)[-len(undone):] == undone
                names = [n for n, _ in calls]
                assert names.count("cuCtxPushCurrent") == names.count("cuCtxPopCurrent") > 0
                assert not opening._pools and not opening._pool_pointers

    def test_a_failed_release_is_reported_by_the_next_open(self):
        with contextlib.ExitStack() as patches:
            calls = self.stand_in(patches, "cuIpcCloseMemHandle")
            patches.enter_context(mock.patch.object(opening, "_torch_tensor", FakeTensor))
            opening._cleanup_errors.clear()
            t = opening.open(CASES["legacy"])
            del t
            gc.collect()
            assert calls and len(opening._cleanup_errors) == 1
            with self.assertRaisesRegex(opening.ReleaseError,
                                        "an earlier release failed: cuIpcCloseMemHandle failed") as e:
                opening.open(CASES["legacy"])
            assert isinstance(e.exception, RuntimeError)
            assert not opening._cleanup_errors
