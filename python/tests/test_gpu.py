"""share() and open() on a GPU, with a second process (gpu_peer.py) on the other end. Marked gpu: skipped without
torch and CUDA, failures under CUDAIPC4J_REQUIRE_GPU=1 (see gpu_policy.py)."""
import gc
import hashlib
import mmap
import os
import struct
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from . import driver_files, support

PEER = str(Path(__file__).with_name("gpu_peer.py"))
LIMIT = 120


class Peer:
    """gpu_peer.py in its own process; its stdout read line by line, as handshakes."""

    def __init__(self, *args, env=None, prefix=()):
        self.p = subprocess.Popen([*prefix, sys.executable, PEER, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})

    def expect(self, word):
        line = self.p.stdout.readline()
        if not line.startswith(word):
            self.p.kill()
            _, err = self.p.communicate(timeout=LIMIT)
            raise AssertionError(f"gpu_peer: expected {word!r}, got {line!r}; stderr: {err[-2000:]}")
        return line.rstrip("\n").split(" ", 2)[1:] if " " in line else []

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def kill(self):
        """Ends the peer if it still runs and removes what a killed peer leaves, its holder table, and the driver's
        file that a torch peer leaves even at a normal exit."""
        self.p.kill()
        self.p.wait()
        driver_files.remove_of_ended(self.p.pid)
        for stream in (self.p.stdin, self.p.stdout, self.p.stderr):
            try:
                stream.close()
            except OSError:
                pass  # a pipe whose reader is gone
        for leftover in Path("/dev/shm").glob(f"cudaipc4j-{self.p.pid}-*-holders"):
            leftover.unlink(missing_ok=True)

    def finish(self):
        try:
            out, err = self.p.communicate(timeout=LIMIT)
        finally:
            self.p.kill()
        assert self.p.returncode == 0, f"gpu_peer exited {self.p.returncode}: {err[-2000:]}"
        return out


def bytes_of(tensor):
    import torch
    t = tensor.detach().contiguous()
    return t.view(torch.uint8).cpu().numpy().tobytes() if t.numel() else b""


def expected_view(size, d):
    """What the reader must see: the exporter's pattern bytes, viewed as the descriptor's tensor, on the CPU."""
    import torch

    from .gpu_peer import pattern
    raw = torch.frombuffer(bytearray(pattern(size)), dtype=torch.uint8)
    t = d.tensor
    if t is None:
        return raw
    dtype = getattr(torch, t.dtype)
    item = torch.empty((), dtype=dtype).element_size()
    return raw[:size // item * item].view(dtype).as_strided(t.shape, t.strides, t.offset)


def _refetch(d):
    from cudaipc4j import pidfd
    return pidfd.take_fds(d.exporter.pid, d.fd_numbers) if d.fd_numbers else None


def _slot(ref_file, slot):
    with open(f"/dev/shm{ref_file}", "rb") as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        try:
            return struct.unpack_from("<q", m, 64 + 8 * slot)[0]
        finally:
            m.close()


@support.gpu
class GpuTest(support.TestCase):
    def test_open_what_a_java_style_exporter_exports(self):
        for kind, via, like in [("legacy", "socket", "torch"), ("vmm", "socket", "torch"), ("vmm", "pidfd", "torch"),
                                ("pool", "socket", "torch"), ("pool", "pidfd", "torch"), ("pool", "socket", "cupy")]:
            with self.subTest(kind=kind, via=via, like=like):
                self._open_exported(kind, via, like)

    def _open_exported(self, kind, via, like):
        import torch

        import cudaipc4j
        from cudaipc4j import fdsocket
        from cudaipc4j.holders import HolderTable
        if like == "cupy":
            try:
                import cupy  # noqa: F401
            except ImportError as e:
                self.skipTest(f"cupy is not installed ({e})")
        path = str(self.temporary_directory() / "s")
        peer = Peer("export", kind, path)
        try:
            (digest,) = peer.expect("sha256")
            peer.expect("descriptor")
            sock = fdsocket.connect(path, timeout=LIMIT)
            with sock:
                d, fds = fdsocket.receive_descriptor(sock, timeout=LIMIT)
                if via == "pidfd":
                    for fd in fds:
                        os.close(fd)
                    t = cudaipc4j.open(d, like=like)  # fds taken by number from the exporter
                else:
                    t = cudaipc4j.open(d, fds=fds, like=like)
                if like == "cupy":
                    assert type(t).__module__.startswith("cupy")
                    t = torch.from_dlpack(t)  # DLPack, without a copy: the torch tensor keeps the CuPy array alive
                assert t.is_cuda and t.device.index == 0
                expected = expected_view(d.bytes, d)
                assert t.dtype == expected.dtype and t.shape == expected.shape and t.stride() == expected.stride()
                # compared as bytes: the pattern holds NaNs of float16 and bfloat16, which torch.equal calls unequal
                assert bytes_of(t) == bytes_of(expected), "the exporter's bytes, seen through the descriptor's view"
                # the whole allocation as bytes, opened a second time (legacy: the cached handle; pool: the pool)
                whole = cudaipc4j.open(replace(d, tensor=None), fds=None if via == "pidfd" or kind == "legacy"
                                       else _refetch(d))
                assert whole.dtype == torch.uint8 and whole.shape == (d.bytes,)
                assert hashlib.sha256(bytes_of(whole)).hexdigest() == digest
                table = HolderTable(d.exporter.holders)
                try:
                    assert table.holders(d.exporter.export_id) == [os.getpid()] * 2  # one hold per open
                    view = t[:2] if t.dim() else t
                    del t
                    gc.collect()
                    assert table.holders(d.exporter.export_id) == [os.getpid()] * 2  # a view keeps its mapping
                    del view
                    gc.collect()
                    assert table.holders(d.exporter.export_id) == [os.getpid()]
                    whole.zero_()
                    torch.cuda.synchronize()
                    del whole
                    gc.collect()
                    assert table.holders(d.exporter.export_id) == []
                finally:
                    table.close()
                fdsocket.send(sock, b"done")
            peer.expect("released")
            (after,) = peer.expect("after")
            assert after == hashlib.sha256(bytes(d.bytes)).hexdigest(), "what the reader wrote reached the exporter"
            peer.finish()
        finally:
            peer.kill()

    def test_open_what_torch_shares_and_release_it(self):
        for expandable in [False, True]:
            with self.subTest(allocator="expandable" if expandable else "legacy"):
                self._open_torch_shares(expandable)

    def _open_torch_shares(self, expandable):
        import cudaipc4j
        env = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"} if expandable else {}
        peer = Peer("torch-share", env=env)
        try:
            cases = []
            while True:
                line = peer.p.stdout.readline()
                if line.startswith("ready"):
                    break
                if not line.startswith("case "):
                    peer.p.kill()
                    self.fail(f"gpu_peer: {line!r} {peer.p.stderr.read()[-2000:]}")
                _, name, digest, text = line.rstrip("\n").split(" ", 3)
                cases.append((name, digest, cudaipc4j.from_json(text)))
            assert len(cases) == 7
            opened = []
            for name, digest, d in cases:
                assert d.kind == "torch" and d.device_uuid is not None
                if d.torch.handle is not None:
                    kind = cudaipc4j.torch_handle.parse(d.torch.handle).type
                    assert kind == ("e" if expandable else "c"), name
                    assert _slot(d.torch.ref_counter_file, d.torch.ref_counter_offset) == 1, name
                t = cudaipc4j.open(d)
                assert hashlib.sha256(bytes_of(t)).hexdigest() == digest, name
                assert tuple(t.shape) == d.tensor.shape and tuple(t.stride()) == d.tensor.strides, name
                opened.append((d, t))
            for d, _ in opened:
                if d.torch.handle is not None:
                    assert _slot(d.torch.ref_counter_file, d.torch.ref_counter_offset) == 1
            refs = [(d.torch.ref_counter_file, d.torch.ref_counter_offset) for d, _ in opened if d.torch.handle]
            del opened, t
            gc.collect()
            deadline = time.monotonic() + 5
            while any(_slot(f, s) for f, s in refs) and time.monotonic() < deadline:
                time.sleep(0.01)  # torch's reader gives the count back when its storage's deleter runs
            assert [_slot(f, s) for f, s in refs] == [0] * len(refs), "one release per share"
            peer.send("free")
            start, after = peer.expect("allocated")
            assert after == start, f"the producer's memory after ipc_collect: {after} bytes, {start} at its start"
            peer.finish()
        finally:
            peer.kill()

    def test_a_reader_without_ptrace_rights_opens_torch_shares_over_the_socket(self):
        """The producer non-dumpable, the reader without CAP_SYS_PTRACE (setpriv as root): the plain open of an
        expandable segment is refused in one line naming ptrace and the socket way; over the socket every tensor
        opens with the producer's bytes, legacy and expandable, and the producer frees everything afterwards."""
        prefix = ()
        if os.getuid() == 0:
            prefix = ("setpriv", "--inh-caps=-sys_ptrace", "--bounding-set=-sys_ptrace")
            probe = subprocess.run([*prefix, "true"], capture_output=True, text=True)
            if probe.returncode != 0:
                self.skipTest(f"setpriv cannot drop CAP_SYS_PTRACE here: {probe.stderr.strip()}")
        for expandable in [False, True]:
            with self.subTest(allocator="expandable" if expandable else "legacy"):
                self._socket_way(expandable, prefix)

    def _socket_way(self, expandable, prefix):
        from cudaipc4j import pidfd
        env = {"PYTORCH_CUDA_ALLOC_CONF": f"expandable_segments:{expandable}"}
        producer = Peer("torch-serve", env=env)
        reader = None
        try:
            (plain,) = producer.expect("plain")
            digests = []
            while True:
                line = producer.p.stdout.readline()
                if line.startswith("serving "):
                    break
                assert line.startswith("case "), f"gpu_peer: {line!r}"
                digests.append(line.split()[2])
            reader = Peer("torch-read", line.split()[1], str(len(digests)), env=env, prefix=prefix)
            reader.send(plain)
            first = reader.p.stdout.readline().rstrip("\n")
            if expandable:
                assert first.startswith("refused pidfd_getfd: cannot take fd ") and "ptrace" in first, first
                assert first.endswith(pidfd.SOCKET_WAY), first
            else:
                assert first == "opened", "a 'c' handle needs no ptrace rights: " + first
            assert [reader.expect("sha")[0] for _ in digests] == digests, "the producer's bytes, over the socket"
            reader.expect("holding")
            reader.send("release")
            reader.expect("released")
            reader.finish()
            producer.send("free")
            start, after = producer.expect("allocated")
            assert after == start, f"the producer's memory after ipc_collect: {after} bytes, {start} at its start"
            producer.finish()
        finally:
            producer.kill()
            if reader is not None:
                reader.kill()

    def test_share_describes_the_tensor_and_its_device(self):
        import torch

        import cudaipc4j
        from cudaipc4j import devices
        t = torch.arange(12, dtype=torch.float16, device="cuda:0").view(3, 4)[:, 1:3]
        d = cudaipc4j.share(t)
        assert d.kind == "torch" and d.tensor.dtype == "float16" and d.tensor.shape == (3, 2)
        assert d.tensor.strides == (4, 1) and d.tensor.offset == 1 and d.exporter.pid == os.getpid()
        assert devices.ordinal_of(d.device_uuid) == 0
        assert cudaipc4j.from_json(cudaipc4j.to_json(d)) == d
        with self.assertRaisesRegex(ValueError, "takes a CUDA tensor"):
            cudaipc4j.share(torch.zeros(3))

    def test_an_absent_device_is_refused(self):
        import cudaipc4j
        from cudaipc4j.descriptor import Descriptor, Exporter
        from cudaipc4j.devices import DeviceNotFound
        d = Descriptor(kind="legacy", device_uuid="GPU-00000000-0000-0000-0000-000000000001", bytes=64,
                       exporter=Exporter(1, 0, 1), ipc_handle=bytes(64))
        with self.assertRaisesRegex(DeviceNotFound, "is not visible to this process"):
            cudaipc4j.open(d)

    def test_a_bare_torch_share_needs_the_callers_device(self):
        import torch

        import cudaipc4j
        t = torch.zeros(0, device="cuda:0")
        d = replace(cudaipc4j.share(t), device_uuid=None)
        with self.assertRaisesRegex(ValueError, "pass device="):
            cudaipc4j.open(d)
        assert cudaipc4j.open(d, device=0).shape == (0,)
