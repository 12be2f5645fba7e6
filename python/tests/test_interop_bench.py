"""The pure parts of scripts/interop_bench_py.py (sizes, share files, torch's rebuild fields, the pool descriptor,
the summary against the targets), without a GPU."""
import contextlib
import importlib.util
import io
import json
from pathlib import Path

from cudaipc4j.descriptor import from_json, to_json

from . import support

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("interop_bench_py", ROOT / "scripts" / "interop_bench_py.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

GOLDEN = ROOT / "interop-golden" / "java"
UUID = "GPU-01234567-89ab-cdef-0123-456789abcdef"


def rows():
    out = []
    for java, torch in ((400.0, 600.0), (420.0, 640.0), (900.0, 610.0)):
        out.append({"impl": "java", "case": "tensor", "alloc": "c", "bytes": 64 << 20, "tensors": 1,
                    "first_open_us": java, "reopen_us": 3.0, "reopens": 50, "copy_gbps_mapped": 2900.0,
                    "copy_gbps_local": 3000.0, "copy_bytes": 1 << 30})
        out.append({"impl": "torch", "case": "tensor", "alloc": "c", "bytes": 64 << 20, "tensors": 1,
                    "first_open_us": torch, "reopen_us": 200.0, "reopens": 50, "copy_gbps_mapped": 2800.0,
                    "copy_gbps_local": 2950.0})
    out.append({"impl": "java", "case": "state-dict", "alloc": "c", "bytes": 2 << 30, "tensors": 100,
                "open_us": 3000.0})
    out.append({"impl": "torch", "case": "state-dict", "alloc": "c", "bytes": 2 << 30, "tensors": 100,
                "open_us": 5000.0})
    out.append({"impl": "java", "case": "pool", "alloc": "pool", "bytes": 64 << 20, "tensors": 1,
                "first_open_us": 4000.0})
    out.append({"impl": "cuda.core", "case": "pool", "alloc": "pool", "bytes": 64 << 20, "tensors": 1,
                "first_open_us": 3350.0})
    return out



class InteropBenchTest(support.TestCase):
    def test_sizes(self):
        assert bench.parse_bytes("64M") == 64 << 20
        assert bench.parse_bytes("1g") == 1 << 30
        assert bench.parse_bytes("4096") == 4096
        for bad in ("", "M", "1.5G", "-1", "0", "12X"):
            with self.assertRaises(ValueError):
                bench.parse_bytes(bad)

    def test_share_files_round_trip(self):
        folder = self.temporary_directory()
        line = (GOLDEN / "torch-c.json").read_text().strip()
        path = folder / "shares.jsonl"
        bench.write_atomically(path, [line, line])
        assert not (folder / "shares.jsonl.tmp").exists()
        ds = bench.read_descriptors(path)
        assert len(ds) == 2 and ds[0] == from_json(line)
        (folder / "empty").write_text("\n")
        with self.assertRaisesRegex(ValueError, "holds no descriptor"):
            bench.read_descriptors(folder / "empty")

    def test_rebuild_fields_are_torchs_fifteen_arguments_values(self):
        d = from_json((GOLDEN / "torch-c.json").read_text())
        f = bench.rebuild_fields(d)
        assert f["shape"] == d.tensor.shape and f["strides"] == d.tensor.strides and f["offset"] == d.tensor.offset
        assert f["handle"] == d.torch.handle and f["storage_bytes"] == d.torch.storage_bytes
        assert f["ref_counter_handle"] == d.torch.ref_counter_file.encode()
        assert f["event_sync_required"] == (d.event is not None and d.event.wait)
        assert bench._alloc_of(d) == "c"
        assert bench._alloc_of(from_json((GOLDEN / "torch-e.json").read_text())) == "e"
        with self.assertRaisesRegex(ValueError, "expected a torch descriptor"):
            bench.rebuild_fields(from_json((GOLDEN / "legacy.json").read_text()))

    def test_pool_descriptor_is_read_by_the_format(self):
        d = bench.pool_descriptor(64 << 20, 17, bytes(range(64)), UUID, 4242, 4026531836, 99)
        back = from_json(to_json(d))
        assert back == d
        assert back.kind == "pool" and back.handle_type == "posix_fd" and back.fd_numbers == (17,) and back.fds == 1
        assert back.device_uuid == UUID and back.exporter.pid == 4242 and back.pool_id == 99

    def test_summary_takes_medians_over_runs_and_checks_each_target(self):
        s = {(r["case"], r["metric"]): r for r in bench.summarize(rows())}
        first = s[("tensor", "first_open_us")]
        assert first["java"] == 420.0 and first["python"] == 610.0 and first["runs"] == 3
        self.assertApprox(first["ratio"], 420 / 610)
        assert first["met"]
        reopen = s[("tensor", "reopen_us")]
        assert reopen["java"] == 3.0 and reopen["met"]
        self.assertApprox(reopen["ratio"], 3 / 200)
        sd = s[("state-dict", "open_us")]
        self.assertApprox(sd["ratio"], 0.6)
        assert not sd["met"]
        bw = s[("tensor", "copy_gbps_mapped")]
        assert bw["local"] == 3000.0
        self.assertApprox(bw["ratio"], 2900 / 3000)
        assert bw["met"]
        assert bw["bytes"] == 1 << 30 and bw["python_mapped"] == 2800.0 and bw["python_local"] == 2950.0
        pool = s[("pool", "first_open_us")]
        assert pool["python"] == 3350.0 and not pool["met"]
        text = bench.table(bench.summarize(rows()))
        assert "first open (64 MiB)" in text and "whole state dict (2 GiB, 100 tensors)" in text
        assert text.count(" NO") == 2
        assert "read bandwidth, mapped vs local (1 GiB)" in text and "mapped 2800.0, local 2950.0 GB/s" in text

    def test_the_pool_part_from_exec_gives_each_java_arm_against_cuda_core(self):
        common = {"case": "pool", "alloc": "pool", "bytes": 64 << 20, "tensors": 1}
        timed = []
        for k in range(3):
            timed.append({"impl": "java", **common, "first_open_us": 4000.0, "exec_to_open_us": 700e3 + k})
            timed.append({"impl": "java-aot", **common, "first_open_us": 3000.0, "exec_to_open_us": 450e3 + k})
            timed.append({"impl": "cuda.core", **common, "first_open_us": 3350.0, "exec_to_open_us": 600e3 + k})
        summary = bench.summarize(timed)
        s = {(r["case"], r["metric"], r.get("arm", "java")): r for r in summary}
        first = s[("pool", "first_open_us", "java")]
        # the first import against cuda.core's is the reader without a cache's: the AOT arm is no "python" figure
        assert first["java"] == 4000.0 and first["python"] == 3350.0 and first["runs"] == 3
        aot = s[("pool", "exec_to_open_us", "java-aot")]
        assert aot["java"] == 450001.0 and aot["python"] == 600001.0 and aot["met"]
        assert aot["target"] == "java <= 1x cuda.core" and aot["label"] == "pool import from exec, Java, AOT cache"
        plain = s[("pool", "exec_to_open_us", "java")]
        assert plain["java"] == 700001.0 and plain["met"] is None and plain["target"] == "-"
        text = bench.table(summary)
        assert "pool import from exec, Java, AOT cache (64 MiB)" in text and "  450.0 ms" in text
        assert bench.pool_exec_summary([r for r in timed if r["impl"] != "cuda.core"]) == []

    def test_summary_leaves_out_rows_without_both_sides(self):
        only_java = [r for r in rows() if r["impl"] == "java"]
        s = {(r["case"], r["metric"]) for r in bench.summarize(only_java)}
        # absolute and Java-only targets stay; ratios to Python need Python's figure
        assert s == {("tensor", "reopen_us"), ("tensor", "copy_gbps_mapped")}

    def test_summary_command_writes_the_table_and_json(self):
        folder = self.temporary_directory()
        jsonl = folder / "runs.jsonl"
        jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows()) + "not json, a stray line\n")
        out = folder / "summary.json"
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            assert bench.main(["x", "summary", str(jsonl), str(out)]) == 0
        assert "pool first import" in printed.getvalue()
        assert len(json.loads(out.read_text())) == 5

    def test_records_are_one_json_line_in_the_java_shape(self):
        line = bench.record("torch", "tensor", "c", bytes=1, tensors=1, first_open_us=1.5)
        assert "\n" not in line
        assert list(json.loads(line)) == ["impl", "case", "alloc", "bytes", "tensors", "first_open_us"]

    def test_bad_command_lines_print_the_usage(self):
        for argv in (["x"], ["x", "torch-reader", "nonsense", "f"]):
            with contextlib.redirect_stderr(io.StringIO()) as printed:  # kept out of the runner's output
                assert bench.main(argv) == 2
            assert printed.getvalue().startswith(bench.__doc__.strip()[:40])

    def test_phases_give_the_java_medians_per_case_without_the_totals(self):
        rows = [
            {"impl": "java", "case": "tensor", "alloc": "c", "first_open_us": 900.0, "reopen_us": 40.0,
             "first_open_ipc_open_us": 500.0, "reopen_event_open_us": v, "first_open_classes_loaded": 20}
            for v in (10.0, 30.0, 20.0)
        ] + [{"impl": "python", "case": "tensor", "alloc": "c", "first_open_us": 600.0, "reopen_us": 30.0},
             {"impl": "java", "case": "pool", "alloc": "pool", "first_open_us": 900.0, "pidfd_us": 5.0,
              "pool_import_us": 800.0, "pointer_import_us": 95.0}]
        text = bench.phases(rows)
        assert ("java phases, tensor (c), us: first_open_ipc_open 500.0, reopen_event_open 20.0,"
                " first_open_classes_loaded 20 classes") in text
        assert "java phases, pool (pool), us: pidfd 5.0, pool_import 800.0, pointer_import 95.0" in text
        assert "reopen 40" not in text and "first_open 900" not in text

    def test_phases_give_the_driver_floor_its_own_line_after_the_java_lines(self):
        rows = [{"impl": "driver", "case": "tensor", "alloc": "c", "first_open_us": 300.0,
                 "first_open_ipc_open_us": 200.0, "first_open_event_open_us": v} for v in (80.0, 90.0, 70.0)]
        rows.append({"impl": "java", "case": "tensor", "alloc": "c", "first_open_us": 900.0,
                     "first_open_ipc_open_us": 500.0, "first_open_classes_loaded": 3})
        lines = bench.phases(rows).splitlines()
        assert lines == ["java phases, tensor (c), us: first_open_ipc_open 500.0, first_open_classes_loaded 3 classes",
                         "its driver calls alone (cuda.bindings), tensor (c), us: first_open_ipc_open 200.0,"
                         " first_open_event_open 80.0"]

    def test_the_java_bindings_floor_has_its_own_line_and_phase_line(self):
        rows = [{"impl": "java", "case": "tensor", "alloc": "c", "bytes": 64 << 20, "tensors": 1,
                 "first_open_us": 900.0, "reopen_us": 30.0},
                {"impl": "python", "case": "tensor", "alloc": "c", "bytes": 64 << 20, "tensors": 1,
                 "first_open_us": 600.0, "reopen_us": 25.0},
                {"impl": "driver", "case": "tensor", "alloc": "c", "bytes": 64 << 20, "tensors": 1,
                 "first_open_us": 300.0},
                {"impl": "java-driver", "case": "tensor", "alloc": "c", "bytes": 64 << 20, "tensors": 1,
                 "first_open_us": 310.0, "first_open_ipc_open_us": 150.0, "address_range_us": 2.5}]
        summary = bench.summarize(rows)
        first = next(r for r in summary if r["metric"] == "first_open_us")
        assert first["python"] == 600.0 and first["driver"] == 300.0 and first["java_driver"] == 310.0
        text = bench.table(summary)
        assert "  the same calls through the Java binding (FFM): 310.0 us" in text
        assert bench.phases(rows).splitlines() == [
            "its driver calls alone (FFM), tensor (c), us: first_open_ipc_open 150.0, address_range 2.5"]

    def test_lap_durations_are_the_differences_of_successive_readings(self):
        assert bench._lap_durations(100, {"ipc_open": 150, "event_open": 190, "event_wait": 191}) == {
            "ipc_open": 50, "event_open": 40, "event_wait": 1}
        assert bench._lap_durations(100, {}) == {}

    def test_the_driver_floor_is_its_own_column_never_the_python_side(self):
        extra = [{"impl": "driver", "case": "tensor", "alloc": "c", "bytes": 64 << 20, "tensors": 1,
                  "first_open_us": v, "reopen_us": v / 10} for v in (300.0, 310.0, 290.0)]
        s = {(r["case"], r["metric"]): r for r in bench.summarize(rows() + extra)}
        first = s[("tensor", "first_open_us")]
        assert first["python"] == 610.0 and first["driver"] == 300.0
        assert s[("tensor", "reopen_us")]["driver"] == 30.0
        assert "driver" not in s[("state-dict", "open_us")]
        text = bench.table(bench.summarize(rows() + extra))
        assert "the driver's calls of the Java reader alone (cuda.bindings): 300.0 us" in text
        with contextlib.redirect_stderr(io.StringIO()):  # the usage, kept out of the runner's output
            assert bench.main(["x", "driver-reader", "nonsense", "f"]) == 2


def scale_rows():
    """Three runs of each reader of the scale part, as they print their lines (Java's, torch's, the C program's)."""
    out = []
    for k in range(3):
        common = {"case": "scale", "alloc": "c", "bytes": 6 << 30, "tensors": 20000}
        out.append({"impl": "java", **common, "exec_to_open_us": 900e3 + k, "open_us": 220e3, "blocks": 1700,
                    "open_ipc_open_us": 50e3, "steady_round_us": 100e3, "steady_rounds": 3})
        out.append({"impl": "java-aot", **common, "exec_to_open_us": 500e3 + k, "open_us": 150e3, "blocks": 1700})
        out.append({"impl": "torch", **common, "exec_to_open_us": 4000e3 + k, "open_us": 400e3,
                    "steady_round_us": 400e3, "steady_rounds": 3})
        out.append({"impl": "c", **common, "exec_to_open_us": 150e3 + k, "open_us": 20e3, "blocks": 1700,
                    "pointer_sum": 12345})
    return out


class ScalePartTest(support.TestCase):
    def test_scale_sizes_are_log_uniform_bf16_sizes_in_the_range(self):
        sizes = bench.scale_sizes(20000, 512, 2 << 20, 7)
        assert len(sizes) == 20000 and sizes == bench.scale_sizes(20000, 512, 2 << 20, 7)
        assert min(sizes) >= 512 and max(sizes) <= 2 << 20 and all(s % 2 == 0 for s in sizes)
        # log-uniform: as many below the geometric middle (32 KiB) as above it, give or take
        below = sum(s < 32 << 10 for s in sizes)
        assert 9000 < below < 11000, below
        assert bench.scale_sizes(3, 64, 64, 1) == [64, 64, 64]
        for bad in ((0, 512, 1024), (1, 1, 1024), (1, 2048, 1024)):
            with self.assertRaises(ValueError):
                bench.scale_sizes(*bad, 1)

    def test_c_line_is_the_c_programs_seven_fields(self):
        d = from_json((GOLDEN / "torch-c.json").read_text())
        fields = bench.c_line(d).split(" ")
        assert fields == ["0123456789abcdef0123456789abcdef", d.torch.handle.hex(), "0", str(d.bytes),
                          d.event.ipc_handle.hex(), "/torch_459_1234567_0", "0"]
        e = from_json(with_uuid((GOLDEN / "torch-e.json").read_text()))
        fields = bench.c_line(e).split(" ")
        assert len(fields) == 7 and fields[1] == e.torch.handle.hex() and fields[2] == "2097152" and fields[4] == "-"
        with self.assertRaisesRegex(ValueError, "device_uuid"):
            bench.c_line(from_json((GOLDEN / "torch-e.json").read_text()))

    def test_steady_rounds_are_numbered_files_beside_the_share_file(self):
        assert bench.steady_paths("/w/sc.jsonl", 3) == ["/w/sc.jsonl.1", "/w/sc.jsonl.2", "/w/sc.jsonl.3"]
        assert bench.steady_paths("/w/sc.jsonl", 0) == []

    def test_scale_summary_gives_each_java_arm_against_torch_with_the_c_program_beside(self):
        s = {(r["metric"], r["arm"]): r for r in bench.summarize(rows() + scale_rows()) if r["case"] == "scale"}
        assert set(s) == {("exec_to_open_us", "java-aot"), ("exec_to_open_us", "java"), ("open_us", "java-aot"),
                          ("open_us", "java"), ("steady_round_us", "java")}
        aot = s[("exec_to_open_us", "java-aot")]
        assert aot["java"] == 500001.0 and aot["python"] == 4000001.0 and aot["c"] == 150001.0 and aot["runs"] == 3
        self.assertApprox(aot["ratio"], 500001 / 4000001)
        assert aot["met"] and aot["target"] == "java <= 0.15x torch"
        plain = s[("exec_to_open_us", "java")]
        assert plain["target"] == "java <= 0.25x torch" and plain["met"]  # 0.225
        assert not s[("open_us", "java")]["met"] and s[("open_us", "java")]["c"] == 20e3  # 0.55x
        assert s[("open_us", "java-aot")]["met"]  # 0.375x
        steady = s[("steady_round_us", "java")]
        self.assertApprox(steady["ratio"], 0.25)
        assert steady["met"] and "c" not in steady
        assert aot["tensors"] == 20000 and aot["bytes"] == 6 << 30
        text = bench.table(bench.summarize(scale_rows()))
        assert "exec to open, Java, AOT cache (6 GiB, 20000 tensors)" in text
        assert "  500.0 ms" in text and "4000.0 ms" in text
        assert "  the C program (the driver calls alone): 150.0 ms" in text

    def test_an_arm_of_the_java_reader_gets_the_rows_of_the_reader_without_a_cache(self):
        arm = [{"impl": "java-noPrelink", "case": "scale", "alloc": "c", "bytes": 6 << 30, "tensors": 20000,
                "exec_to_open_us": 1100e3 + k, "open_us": 180e3} for k in range(3)]
        s = {(r["metric"], r["arm"]): r for r in bench.summarize(scale_rows() + arm) if r["case"] == "scale"}
        assert ("exec_to_open_us", "java-noPrelink") in s and ("open_us", "java-noPrelink") in s
        assert ("steady_round_us", "java-noPrelink") not in s
        row = s[("open_us", "java-noPrelink")]
        assert row["label"] == "open alone, Java, no cache, noPrelink" and row["java"] == 180e3
        assert row["target"] == "java <= 0.5x torch" and row["met"] and row["c"] == 20e3  # 0.45x
        assert not s[("exec_to_open_us", "java-noPrelink")]["met"]  # 0.275x against 0.25x
        assert s[("open_us", "java")]["java"] == 220e3  # the plain reader's figures stay its own

    def test_a_torch_reader_that_failed_leaves_its_row_with_javas_figure_and_the_failure(self):
        failed = {"impl": "torch", "case": "scale", "alloc": "c",
                  "failed": "exit status 1: torch.OutOfMemoryError: CUDA driver error: out of memory"}
        all_failed = [r for r in scale_rows() if r["impl"] != "torch"] + [failed] * 3
        s = {(r["metric"], r["arm"]): r for r in bench.summarize(all_failed) if r["case"] == "scale"}
        aot = s[("exec_to_open_us", "java-aot")]
        assert aot["java"] == 500001.0 and aot["python"] is None and aot["ratio"] is None and aot["met"] is None
        assert aot["python_failed"].startswith("3 of 3 runs failed, the first: exit status 1: torch.OutOfMemoryError")
        assert aot["tensors"] == 20000 and aot["bytes"] == 6 << 30 and aot["c"] == 150001.0
        text = bench.table(bench.summarize(all_failed))
        assert "  torch's reader: 3 of 3 runs failed" in text
        c_failed = [r for r in scale_rows() if r["impl"] != "c"] + [dict(failed, impl="c")]
        aot = [r for r in bench.summarize(c_failed) if r["metric"] == "exec_to_open_us" and r["arm"] == "java-aot"][0]
        assert "c" not in aot and aot["c_failed"].startswith("1 of 1 runs failed")
        assert "  the C program: 1 of 1 runs failed" in bench.table(bench.summarize(c_failed))
        one_failed = scale_rows() + [failed]
        steady = [r for r in bench.summarize(one_failed) if r["metric"] == "steady_round_us"][0]
        assert steady["python"] == 400e3 and steady["met"] and steady["python_failed"].startswith("1 of 4 runs")

    def test_scale_rows_need_torchs_figure(self):
        only_java = [r for r in scale_rows() if r["impl"] != "torch"]
        assert [r for r in bench.summarize(only_java) if r["case"] == "scale"] == []

    def test_the_scale_readers_command_line(self):
        for argv in (["x", "torch-reader", "scale", "f", "-"], ["x", "torch-reader", "scale", "f", "-", "12.5"],
                     ["x", "pool-reader", "f", "12.5"], ["x", "pool-reader", "f", "1", "2"]):
            with contextlib.redirect_stderr(io.StringIO()):
                assert bench.main(argv) == 2


def with_uuid(line):
    o = json.loads(line)
    o["device_uuid"] = UUID
    return json.dumps(o)


class ScriptOptionsTest(support.TestCase):
    """scripts/interop-bench.sh refuses the scale part's settings before anything runs."""

    def run_script(self, **env):
        import os
        import subprocess
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
        return subprocess.run(["bash", str(ROOT / "scripts" / "interop-bench.sh"), str(self.temporary_directory())],
                              env={**keep, **env}, capture_output=True, text=True, timeout=60)

    def test_the_scale_settings_are_checked_in_one_line_each(self):
        for env, why in (({"SCALE_TENSORS": "0"}, "SCALE_TENSORS must be at least 1"),
                         ({"SCALE_TENSORS": "2e4"}, "SCALE_TENSORS must be a whole number"),
                         ({"STEADY": "three"}, "STEADY must be a whole number"),
                         ({"SCALE_MIN": "1"}, "SCALE_MIN must be at least 2 bytes"),
                         ({"SCALE_MIN": "4K", "SCALE_MAX": "1K"}, "SCALE_MIN (4K) is above SCALE_MAX (1K)"),
                         ({"SCALE_MAX": "2.5M"}, "are sizes like 64M or 1G, got '2.5M'"),
                         ({"WARMUP": "0"}, "the scale part needs a warm-up round"),
                         ({"PARTS": "scale,nonsense"}, "PARTS takes tensor, state-dict, pool and scale"),
                         ({"SCALE_ARM": "no-prelink=-Dx=1"}, "SCALE_ARM takes NAME=OPTIONS"),
                         ({"SCALE_ARM": "aot=-Dx=1"}, "SCALE_ARM's NAME 'aot' is a reader's already"),
                         ({"PARTS": "pool", "WARMUP": "0"}, "the pool part needs a warm-up round"),
                         ({"SCALE_ARM": "noPrelink=x"}, "SCALE_ARM takes NAME=OPTIONS")):
            r = self.run_script(PARTS=env.pop("PARTS", "scale"), **env)
            assert r.returncode == 1, (env, r.stdout, r.stderr)
            assert r.stderr.count("\n") == 1 and why in r.stderr, (env, r.stderr)
            assert r.stdout == ""

    def test_the_help_names_the_scale_part_and_its_settings(self):
        import subprocess
        r = subprocess.run(["bash", str(ROOT / "scripts" / "interop-bench.sh"), "--help"], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0
        for word in ("scale ", "SCALE_TENSORS=20000", "SCALE_MIN=512", "SCALE_MAX=2M", "STEADY=3",
                     "interop_driver_reader.c", "-XX:AOTMode=on", "SCALE_ARM=NAME=OPTIONS"):
            assert word in r.stdout, word
