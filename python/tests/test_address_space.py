"""The Python reader's address space grows with what it maps, not with the device's memory. The VmSize reading and
the bound need no GPU; the reader's test (marked gpu) reads from the Java tests' torch producer
(cudaipc4j-interop/src/test/python/torch_producer.py, ``address-space`` mode, expandable segments)."""
import gc
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import address_space as space
from . import support

PRODUCER = Path(__file__).resolve().parents[2] / "cudaipc4j-interop" / "src" / "test" / "python" / "torch_producer.py"
SEQUENTIAL = 2048
HELD = 1024
LIMIT = 240

STATUS = "Name:\tpython3\nState:\tS (sleeping)\nVmPeak:\t 9876544 kB\nVmSize:\t 9876543 kB\nVmLck:\t       0 kB\n"


class AddressSpaceTest(support.TestCase):
    def test_vm_size_is_read_in_bytes(self):
        assert space.vm_size(STATUS) == 9876543 * 1024
        assert space.vm_size() > 1 << 20, "this process holds more than 1 MiB"

    def test_a_status_without_vm_size_or_in_another_unit_is_refused(self):
        with self.assertRaisesRegex(ValueError, "no VmSize line"):
            space.vm_size("Name:\tx\nVmPeak:\t1 kB\n")
        with self.assertRaisesRegex(ValueError, "VmSize is not a count of kB"):
            space.vm_size("VmSize:\t12 MB\n")
        with self.assertRaisesRegex(ValueError, "VmSize is not a count of kB"):
            space.vm_size("VmSize:\t-12 kB\n")

    def test_the_bound_is_before_plus_one_point_one_times_the_mapped_bytes_plus_one_gib(self):
        assert space.bound(5, 0) == 5 + space.SLACK
        assert space.bound(1000, 1000) == 2100 + space.SLACK
        mapped = (2 << 20) + 1  # rounded up
        assert space.bound(2 << 30, mapped) == (2 << 30) + mapped + (mapped + 9) // 10 + space.SLACK
        assert space.excess(0, 10, 11 + space.SLACK) == 0
        assert space.excess(0, 10, 12 + space.SLACK) == 1
        for before, mapped in [(-1, 0), (0, -1)]:
            with self.assertRaisesRegex(ValueError, "not negative"):
                space.bound(before, mapped)

    def test_the_same_figures_as_the_java_tests(self):
        # org.cudaipc4j.testing.AddressSpace: the same slack, the same rounding
        assert space.SLACK == 1 << 30
        assert space.gib(3 << 29) == "1.50 GiB"


def _descriptor(fields, pid):
    """torch_producer.py's share line (rebuild_cuda_tensor's fields, named) as a torch descriptor."""
    from cudaipc4j import sharing
    hexed = lambda k: None if fields[k] is None else bytes.fromhex(fields[k])  # noqa: E731
    args = (None, fields["shape"], fields["strides"], fields["offset"], None, fields["dtype"],
            fields["device_index"], hexed("handle"), fields["storage_bytes"], fields["storage_offset_bytes"],
            fields["requires_grad"], fields["ref_counter_file"], fields["ref_counter_offset"],
            hexed("event_handle"), fields["event_sync_required"])
    return sharing.from_rebuild_args(args, device_uuid=fields["device_uuid"], pid=pid)


class _Worst:
    """The moment of a phase nearest to the bound (or over it)."""

    def __init__(self, phase, before):
        self.phase, self.before, self.opens = phase, before, 0
        self.excess, self.vm, self.mapped, self.at = None, 0, 0, ""

    def see(self, mapped, at):
        vm = space.vm_size()
        e = space.excess(self.before, mapped, vm)
        if self.excess is None or e > self.excess:
            self.excess, self.vm, self.mapped, self.at = e, vm, mapped, at

    def check(self, opens):
        line = (f"{self.phase}: {self.opens} opens, VmSize {space.gib(self.vm)} at {self.at} with"
                f" {space.gib(self.mapped)} mapped, before {space.gib(self.before)}")
        print(f"{line} ({space.gib(-self.excess)} under the bound)")
        assert self.opens == opens, line
        assert self.excess <= 0, f"{space.gib(self.excess)} over the bound (before + 1.1 x mapped + 1 GiB): {line}"


@support.gpu
class ReaderAddressSpaceGpuTest(support.TestCase):
    def test_vm_size_stays_within_the_bound_over_many_imports_and_with_a_thousand_held(self):
        """1 MiB bf16 tensors of expandable segments: SEQUENTIAL opens, each checked and dropped, one after another;
        then HELD held at once. At every moment VmSize <= before the first open + 1.1 x the bytes mapped + 1 GiB
        (torch's own reader reserves about 1.125 x the device's memory per import); every slot goes back and the
        producer frees everything."""
        if not PRODUCER.is_file():
            self.skipTest(f"the torch producer is not here ({PRODUCER}): not inside the checkout")
        import torch

        import cudaipc4j
        from cudaipc4j import torch_handle, torch_leases
        err = tempfile.TemporaryFile(mode="w+")
        producer = subprocess.Popen(
            [sys.executable, str(PRODUCER), "address-space", str(SEQUENTIAL), str(HELD)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
            env={**os.environ, "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
        try:
            shares = []
            for line in producer.stdout:
                if line.strip() == "shared":
                    break
                shares.append(json.loads(line))
            else:
                err.seek(0)
                self.fail(f"the producer ended before sharing: {err.read()[-2000:]}")
            assert len(shares) == SEQUENTIAL + HELD
            ordinal = shares[0]["device_index"]
            # The process as a reader is before its first open: CUDA's context, torch's stream, the lease book.
            torch.cuda.init()
            torch.cuda.current_stream(ordinal).synchronize()
            torch_leases.start()
            before = space.vm_size()

            one = _Worst("sequential", before)
            for fields in shares[:SEQUENTIAL]:
                d = _descriptor(fields, producer.pid)
                h = torch_handle.parse(d.torch.handle)
                assert h.type == "e", f"the producer did not use expandable segments: {h.describe()}"
                t = cudaipc4j.open(d)
                one.opens += 1
                self._check(t, fields)
                one.see(h.segment_size * len(h.fds), fields["case"])
                del t  # unmapped as the storage dies
                one.see(0, fields["case"] + " dropped")
            one.check(SEQUENTIAL)

            held = _Worst("held", before)
            tensors = []
            mapped = 0
            for fields in shares[SEQUENTIAL:]:
                d = _descriptor(fields, producer.pid)
                h = torch_handle.parse(d.torch.handle)
                tensors.append(cudaipc4j.open(d))
                held.opens += 1
                self._check(tensors[-1], fields)
                mapped += h.segment_size * len(h.fds)  # every open maps its chunks
                held.see(mapped, fields["case"])
            held.check(HELD)
            del tensors
            gc.collect()
            torch.cuda.synchronize()

            producer.stdin.write("done\n")
            producer.stdin.flush()
            slots = json.loads(producer.stdout.readline())["slots"]
            assert len(slots) == SEQUENTIAL + HELD
            assert [k for k, v in slots.items() if v != 0] == [], "every slot given back once"
            memory = json.loads(producer.stdout.readline())
            assert memory["allocated_after"] == memory["allocated_start"], f"the producer freed everything: {memory}"
            producer.stdin.close()
            assert producer.wait(timeout=LIMIT) == 0
        finally:
            if producer.poll() is None:
                producer.kill()
                producer.wait()
            err.close()
            for stream in (producer.stdin, producer.stdout):
                try:
                    stream.close()
                except OSError:
                    pass  # a pipe whose other end is gone
            from . import driver_files
            driver_files.remove_of_ended(producer.pid)  # torch leaves its own, even at a normal exit

    @staticmethod
    def _check(t, fields):
        import torch
        data = t.contiguous().view(torch.uint8).cpu().numpy().tobytes()
        assert hashlib.sha256(data).hexdigest() == fields["sha256"], fields["case"]
