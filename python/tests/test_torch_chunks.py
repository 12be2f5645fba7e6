"""A torch share of an expandable segment opened by cudaipc4j itself: its chunks' fds received over the descriptor
socket (no ptrace rights needed) or taken with pidfd_getfd, mapped in order, its slot held in the lease book and
given back once after the unmap; and the producer's side that sends them. Against the recording driver; no GPU."""
import errno
import gc
import os
import subprocess
import sys
from dataclasses import replace
from unittest import mock

from cudaipc4j import fdsocket, opening, pidfd, sharing, torch_handle, torch_leases
from cudaipc4j.descriptor import from_json

from . import fake_driver, support
from .golden_cases import CASES
from .test_opening import FakeTensor, a_pipe_fd, open_fds, torch_counter_file

CHUNK = 2 << 20


def share_of(pid, fds, offset=CHUNK + 4096, nbytes=8192):
    """torch-e of ``pid`` over ``fds``, slot 1 of the test's counter file."""
    base = CASES["torch-e"]
    share = replace(base.torch, handle=torch_handle.build_e(pid, CHUNK, fds=fds), storage_bytes=nbytes,
                    storage_offset_bytes=offset)
    return replace(base, torch=share, bytes=nbytes, tensor=None)


class TorchChunksTest(support.TestCase):
    def setUp(self):
        self.driver = fake_driver.install(self)
        self.enterContext(mock.patch.object(opening, "_torch_tensor", FakeTensor))
        self.enterContext(mock.patch.object(opening, "_contexts", {}))
        self.enterContext(mock.patch.object(opening.devices, "ordinal_of", lambda uuid: 0))
        self.slot, _ = torch_counter_file(self, {0: 1, 1: 1})  # first: the leases give back in its folder
        self.leases = torch_leases.TorchLeases(watch=False, first_page=1)
        self.addCleanup(self.leases._book.close)
        self.enterContext(mock.patch.object(torch_leases, "_default", self.leases))

    def test_chunks_given_are_mapped_in_order_and_the_slot_given_back_after_the_unmap(self):
        before = open_fds()
        t = opening.open(share_of(459, [45, 46]), fds=[a_pipe_fd(), a_pipe_fd()], device=0)
        assert open_fds() == before, "each fd closed once imported"
        assert fake_driver.names(self.driver) == [
            "cuMemImportFromShareableHandle", "cuMemImportFromShareableHandle",
            "cuMemGetAllocationPropertiesFromHandle", "cuMemGetAllocationGranularity", "cuMemAddressReserve",
            "cuMemMap", "cuMemMap", "cuMemSetAccess"]
        calls = [args for n, args in self.driver if n in ("cuMemAddressReserve", "cuMemMap")]
        base = calls[1][0]
        assert calls[0][0] == 2 * CHUNK and [c[0] for c in calls[1:]] == [base, base + CHUNK], "chunk i at i * size"
        assert t.mapping.ptr == base + CHUNK + 4096 and t.mapping.size == 8192, "the storage at its offset"
        assert self.slot(1) == 1 and self.leases.held() == 1, "held in the lease book, not incremented"
        self.driver.clear()
        del t
        gc.collect()
        assert fake_driver.names(self.driver) == ["cuCtxSynchronize", "cuMemUnmap", "cuMemUnmap", "cuMemAddressFree",
                                                  "cuMemRelease", "cuMemRelease"]
        assert self.slot(1) == 0 and self.leases.held() == 0, "given back once, after the unmap"
        assert self.slot(0) == 1, "no other slot touched"

    def test_fds_that_do_not_fit_the_share_are_refused_closed_and_the_slot_given_back(self):
        before = open_fds()
        with self.assertRaisesRegex(ValueError, "lists 2 chunk fd\\(s\\), 1 given"):
            opening.open(share_of(459, [45, 46]), fds=[a_pipe_fd()], device=0)
        assert self.slot(1) == 0 and open_fds() == before and self.leases.held() == 0
        self.slot, _ = torch_counter_file(self, {0: 1})
        with self.assertRaisesRegex(ValueError, "type 'c' .*travels without fds, 1 given"):
            opening.open(CASES["torch-c"], fds=[a_pipe_fd()])
        assert self.slot(0) == 0 and open_fds() == before

    def test_without_fds_they_are_taken_from_the_producer(self):
        r, w = os.pipe()
        producer = subprocess.Popen([sys.executable, "-c", "import sys; print(flush=True); sys.stdin.read()"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(w,))
        os.close(w)
        try:
            assert producer.stdout.readline() == b"\n"
            before = open_fds()
            try:
                t = opening.open(share_of(producer.pid, [w], offset=4096), device=0)
            except pidfd.FdAccessError as e:
                if e.errno == errno.EPERM:
                    self.skipTest(f"this machine refuses ptrace over a child: {e}")
                raise
            assert open_fds() == before, "the copy taken (and the pidfd) closed once imported"
            assert fake_driver.names(self.driver)[0] == "cuMemImportFromShareableHandle"
            assert self.slot(1) == 1 and self.leases.held() == 1
            del t
            gc.collect()
            assert self.slot(1) == 0
        finally:
            producer.kill()
            producer.wait()
            producer.stdin.close()
            producer.stdout.close()
            os.close(r)

    def test_a_refused_pidfd_getfd_is_one_line_naming_ptrace_and_the_socket_way(self):
        def refuse(number, *args):
            return -errno.EPERM if number == pidfd.SYS_PIDFD_GETFD else os.dup(0)
        self.enterContext(mock.patch.object(pidfd, "_syscall", refuse))
        self.enterContext(mock.patch.object(pidfd.os, "pidfd_open", lambda pid: os.dup(0), create=True))
        self.enterContext(mock.patch.object(pidfd.os, "pidfd_getfd", None, create=True))
        with self.assertRaises(pidfd.FdAccessError) as e:
            opening.open(share_of(os.getpid(), [45]), device=0)
        line = str(e.exception)
        assert line == (f"pidfd_getfd: cannot take fd 45 of pid {os.getpid()}: not permitted: it needs ptrace rights"
                        f" over the exporter (the same user, and kernel.yama.ptrace_scope 0, or the exporter calling"
                        f" prctl(PR_SET_PTRACER), or CAP_SYS_PTRACE; in Docker --cap-add=SYS_PTRACE); "
                        + pidfd.SOCKET_WAY), line
        assert "\n" not in line and self.slot(1) == 0, "one line, and the share's slot given back"


class SendShareTest(support.TestCase):
    """The producer's side: a torch share's chunk fds attached to its descriptor on the descriptor socket."""

    def test_the_chunk_fds_travel_with_the_share_in_the_handles_order(self):
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        self.addCleanup(lambda: [os.close(f) for f in (r1, w1, r2, w2)])
        d = share_of(os.getpid(), [w1, w2])
        d = replace(d, exporter=replace(d.exporter, pid=os.getpid()))
        assert sharing.chunk_fds(d) == [w1, w2] and sharing.chunk_fds(CASES["torch-c"]) == []
        server = fdsocket.Server(str(self.temporary_directory()))
        self.addCleanup(server.close)
        reader = fdsocket.connect(server.path)
        self.addCleanup(reader.close)
        producer = server.accept(timeout=5)
        self.addCleanup(producer.close)
        assert sharing.send_share(producer, d) is d
        payload, fds = fdsocket.receive(reader, timeout=5)
        self.addCleanup(lambda: [os.close(f) for f in fds])
        assert from_json(payload) == d and len(fds) == 2
        os.write(fds[0], b"a")
        os.write(fds[1], b"b")
        assert (os.read(r1, 1), os.read(r2, 1)) == (b"a", b"b"), "the producer's own chunk fds, in order"
        with self.assertRaisesRegex(ValueError, "a torch share of this process"):
            sharing.send_share(producer, CASES["torch-c"])

    def test_the_server_takes_clients_of_this_user_in_a_private_folder(self):
        folder = self.temporary_directory()
        server = fdsocket.Server(str(folder))
        assert os.stat(server.folder).st_mode & 0o777 == 0o700
        client = fdsocket.connect(server.path)
        accepted = server.accept(timeout=5)
        assert fdsocket.check_peer(accepted, "the client")[0] == os.getpid()
        for s in (client, accepted):
            s.close()
        server.close()
        assert os.listdir(folder) == []
        with self.assertRaisesRegex(fdsocket.ProtocolError, "no client"):
            server2 = fdsocket.Server(str(folder))
            try:
                server2.accept(timeout=0.05)
            finally:
                server2.close()
