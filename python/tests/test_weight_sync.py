"""The pure parts of the weight-sync example's Python side (cudaipc4j-examples' weight_sync.py): its messages, its
state dict's sizes and the wsum64 reference, without a GPU; wsum64 on the GPU against the reference, marked gpu."""
import contextlib
import importlib.util
import io
from pathlib import Path
from unittest import mock

from . import support

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "cudaipc4j-examples" / "src" / "main" / "resources" / "org" / "cudaipc4j" / "examples" / "weight_sync.py"
_spec = importlib.util.spec_from_file_location("weight_sync", SCRIPT)
ws = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ws)

MASK = (1 << 64) - 1
#: bytes per element of each dtype the state dict uses
ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "int32": 4, "int64": 8, "uint8": 1, "float64": 8}


def words(*values):
    return b"".join(v.to_bytes(8, "little") for v in values)


class WeightSyncTest(support.TestCase):
    def test_the_messages_are_version_two_one_a_line(self):
        assert ws.VERSION == "weightsync/2"
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            ws.send("tensor", "layer000.float32", f"{MASK:016x}", '{"kind": "torch"}')
            ws.send("tensor", "w", f"{255:016x}", "{}")
        assert printed.getvalue() == ('weightsync/2 tensor layer000.float32 ffffffffffffffff {"kind": "torch"}\n'
                                      "weightsync/2 tensor w 00000000000000ff {}\n")
        self.enterContext(mock.patch("sys.stdin", io.StringIO("weightsync/2 ok 3\nweightsync/1 ok 4\n")))
        ws.expect("ok", 3)
        with self.assertRaisesRegex(SystemExit, "expected weightsync/2 ok with 1 field"):
            ws.expect("ok", 4)

    def test_the_state_dicts_sizes_are_whole_words_that_every_dtype_fills(self):
        assert set(ws.DTYPE_NAMES) == set(ITEMSIZE)
        for count in (1, 7, 100):
            got = ws.sizes(count)
            assert len(got) == count and ws.MAX_BYTES - 64 < got[-1] <= ws.MAX_BYTES
            for i, nbytes in enumerate(got):
                assert nbytes % 8 == 0, "wsum64 reads 8-byte words"
                assert nbytes % ITEMSIZE[ws.DTYPE_NAMES[i % len(ws.DTYPE_NAMES)]] == 0
        assert ws.sizes(100)[0] == ws.MIN_BYTES

    def test_the_small_bf16_state_dict_spans_512_bytes_to_2_mib(self):
        smallest, largest, dtypes = ws.STATE_DICTS["bf16-small"]
        assert (smallest, largest, dtypes) == (512, 2 << 20, ["bfloat16"])
        got = ws.sizes(20_000, "bf16-small")
        assert len(got) == 20_000 and got[0] == 512 and (2 << 20) - 64 < got[-1] <= 2 << 20
        assert all(n % 8 == 0 for n in got) and got == sorted(got)
        assert 4.5 * (1 << 30) < sum(got) < 5 << 30, "about 4.7 GiB"
        assert ws.STATE_DICTS["mixed"] == (ws.MIN_BYTES, ws.MAX_BYTES, ws.DTYPE_NAMES)

    def test_the_trainers_arguments(self):
        with mock.patch.object(ws, "trainer", return_value=0) as trainer:
            assert ws.main(["weight_sync.py", "trainer", "2", "20000", "42", "bf16-small"]) == 0
            assert ws.main(["weight_sync.py", "trainer", "5", "100", "42"]) == 0
        assert trainer.call_args_list == [mock.call(2, 20000, 42, "bf16-small"), mock.call(5, 100, 42, "mixed")]
        with contextlib.redirect_stderr(io.StringIO()) as printed:
            assert ws.main(["weight_sync.py", "trainer", "2", "20000", "42", "huge"]) == 2
        assert printed.getvalue().startswith("usage: weight_sync.py trainer ROUNDS TENSORS SEED [mixed|bf16-small]")

    def test_wsum64_bytes(self):
        assert ws.wsum64_bytes(b"") == 0
        assert ws.wsum64_bytes(words(*[1] * 1000)) == 1000 * 1000, "the sum of the first n odd numbers"
        assert ws.wsum64_bytes(words(5, 0)) == 5 and ws.wsum64_bytes(words(0, 5)) == 15, "a word moved changes the sum"
        assert ws.wsum64_bytes(words(MASK, MASK)) == (4 * MASK) & MASK, "mod 2**64"
        with self.assertRaisesRegex(ValueError, "wsum64 reads 8-byte words: 12 bytes"):
            ws.wsum64_bytes(bytes(12))

    def test_the_checksum_command_prints_sixteen_hex_digits(self):
        f = self.temporary_directory() / "data.bin"
        f.write_bytes(words(MASK, 2, 3))
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            assert ws.main(["weight_sync.py", "checksum", str(f)]) == 0
        assert printed.getvalue() == f"{ws.wsum64_bytes(words(MASK, 2, 3)):016x}\n"

    @support.gpu
    def test_wsum64_on_the_gpu_equals_the_reference_across_chunks_and_dtypes(self):
        import torch
        self.enterContext(mock.patch.object(ws, "CHUNK_WORDS", 5))  # several chunks, the last a partial one
        g = torch.Generator(device="cuda").manual_seed(7)
        tensors = [torch.randint(-(1 << 63), (1 << 63) - 1, (23,), generator=g, dtype=torch.int64, device="cuda"),
                   torch.randn(9, 4, generator=g, device="cuda").to(torch.bfloat16),
                   torch.randint(0, 256, (40,), generator=g, device="cuda", dtype=torch.uint8),
                   torch.zeros(0, device="cuda")]
        expected = [ws.wsum64_bytes(t.contiguous().view(torch.uint8).cpu().numpy().tobytes()) for t in tensors]
        assert ws.wsum64_all(tensors) == expected
        with self.assertRaisesRegex(ValueError, "wsum64 reads 8-byte words: 6 bytes"):
            ws.wsum64(torch.zeros(3, dtype=torch.float16, device="cuda"))
