#!/usr/bin/env python3
"""The Python side of scripts/interop-bench.sh: the producers (a torch process that shares tensors, a cuda.core
process that exports a memory-pool buffer), the Python readers timed the same way as the Java reader
(`cudaipc4j bench interop`), and the table of medians.

Nothing travels pickled: a producer writes the descriptors it shares as JSON lines (docs/interop-format.md, format 1.0)
into a file the script names; every reader parses them before it starts its clock.

  interop_bench_py.py torch-producer TENSORS SEED         shares on request (commands on stdin, answers on stdout):
      share tensor PATH SIZE REOPENS   fresh copy of a SIZE-byte tensor, shared 1 + REOPENS times
      share bw PATH SIZE               fresh copy of a SIZE-byte tensor, shared once
      share state-dict PATH            fresh copy of the weight-sync example's state dict, each tensor shared once
      share scale PATH N MIN MAX SEED STEADY   fresh copy of N bf16 tensors of MIN to MAX bytes (scale_sizes), each
                                       shared once into PATH (and PATH.lines for the C program, c_line), then the
                                       same copies shared again into PATH.1 .. PATH.STEADY (the steady rounds)
      release [dead]                   drops the copies and runs torch.cuda.ipc_collect(); with dead, first sets
                                       the slots of the share to 0 (its reader died holding them: give_back_slots)
  interop_bench_py.py torch-reader tensor|state-dict FILE [BWFILE ITERATIONS]   torch's reader: one JSON line
  interop_bench_py.py torch-reader scale FILE STEADY_FILES EXEC_EPOCH_US   torch's reader of the scale part, timed
      from its exec (EXEC_EPOCH_US: the script's clock just before exec) and for the open alone; STEADY_FILES,
      comma-separated or -, are the steady rounds (the same storages shared again), each timed as one round
  interop_bench_py.py driver-reader tensor|state-dict FILE   the Java reader's driver calls alone ('c'): one JSON line
  interop_bench_py.py pool-producer PATH SIZE             a cuda.core pool buffer, exported until stdin closes
  interop_bench_py.py pool-reader FILE [EXEC_EPOCH_US]    cuda.core's own import of it: one JSON line; timed from
                                                           the process's exec too where EXEC_EPOCH_US is given
  interop_bench_py.py failed IMPL CASE ALLOC TEXT         the line of a reader that failed (TEXT: its exit and
                                                           last words), in the figures' shape
  interop_bench_py.py summary JSONL                       the table of medians and ratios against the targets

Every reader runs in a fresh process: the device's context is made current (torch after its CUDA init) and the
descriptors parsed before the clock starts; the clock times the open calls only (map, and the stream's wait on
the producer's event where the share asks for it), without a synchronize.
"""
from __future__ import annotations

import collections
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from cudaipc4j.descriptor import Descriptor, Exporter, from_json, to_json  # noqa: E402

WEIGHT_SYNC = ROOT / "cudaipc4j-examples/src/main/resources/org/cudaipc4j/examples/weight_sync.py"
#: Timed back-to-back copies per batch, and batches, of the bandwidth measurement
BATCHES = 5

# --- pure parts (tested without a GPU) -------------------------------------------------------------------------


def parse_bytes(text: str) -> int:
    """``64M``, ``1G``, ``4K`` or a plain number of bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper()
    try:
        value = int(t[:-1]) * units[t[-1]] if t and t[-1] in units else int(t)
    except ValueError:
        raise ValueError(f"not a size: {text!r} (a number of bytes, or with K, M or G)") from None
    if value < 1:
        raise ValueError(f"a size must be at least 1 byte, got {text!r}")
    return value


def read_descriptors(path: str | Path) -> list[Descriptor]:
    """The descriptors of a share file, one JSON line each."""
    out = [from_json(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if not out:
        raise ValueError(f"{path} holds no descriptor")
    return out


def write_atomically(path: str | Path, lines: list[str]) -> None:
    """Writes the lines and renames into place, so a reader never sees half a file."""
    tmp = Path(f"{path}.tmp")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(tmp, path)


def rebuild_fields(d: Descriptor) -> dict[str, Any]:
    """torch's ``rebuild_cuda_tensor`` arguments of a torch descriptor, as plain values (the torch types are put in
    by the reader): what ``reduce_tensor`` sent, the event handle and flag as the producer recorded them."""
    if d.kind != "torch" or d.torch is None or d.tensor is None:
        raise ValueError(f"expected a torch descriptor with its tensor, got kind {d.kind}")
    s, t = d.torch, d.tensor
    return {
        "shape": tuple(t.shape), "strides": tuple(t.strides), "offset": t.offset, "dtype": t.dtype,
        "device": s.device_index, "handle": s.handle, "storage_bytes": s.storage_bytes,
        "storage_offset_bytes": s.storage_offset_bytes,
        "ref_counter_handle": None if s.ref_counter_file is None else s.ref_counter_file.encode(),
        "ref_counter_offset": s.ref_counter_offset or 0,
        "event_handle": None if d.event is None else d.event.ipc_handle,
        "event_sync_required": d.event is not None and d.event.wait,
    }


def pool_descriptor(size: int, fd: int, pointer_export: bytes, device_uuid: bytes | str, pid: int, pid_ns: int,
                    pool_id: int) -> Descriptor:
    """The descriptor of a pool buffer exported through a POSIX fd, with the fd's number for ``pidfd_getfd``."""
    return Descriptor(kind="pool", bytes=size, exporter=Exporter(pid, pid_ns, 1), device_uuid=device_uuid,
                      handle_type="posix_fd", fds=1, fd_numbers=(fd,), pool_id=pool_id,
                      pointer_export=bytes(pointer_export))


def scale_sizes(count: int, smallest: int, largest: int, seed: int) -> list[int]:
    """The scale part's tensor sizes in bytes: ``count`` sizes from ``smallest`` to ``largest``, log-uniform (as many
    tensors of a few KiB as of a MiB, as in a model's state dict), each a whole number of bf16 elements."""
    import math
    import random
    if count < 1 or smallest < 2 or largest < smallest:
        raise ValueError(f"scale sizes: need count >= 1 and 2 <= smallest <= largest, got {count}, {smallest},"
                         f" {largest}")
    rng = random.Random(seed)
    lo, hi = math.log(smallest), math.log(largest)
    return [max(smallest, min(largest, int(math.exp(rng.uniform(lo, hi))))) // 2 * 2 for _ in range(count)]


def c_line(d: Descriptor) -> str:
    """A torch share as the C program (scripts/interop_driver_reader.c) reads it: device UUID (32 hex digits),
    torch's handle (hex), storage offset, the tensor's bytes, the event handle (hex, or - where no wait is asked),
    the counter file and slot (or -), apart by one space."""
    if d.kind != "torch" or d.torch is None or d.torch.handle is None or d.device_uuid is None:
        raise ValueError("the C program reads torch shares of a storage, with their device_uuid")
    s = d.torch
    uuid = d.device_uuid.removeprefix("GPU-").replace("-", "")
    event = d.event.ipc_handle.hex() if d.event is not None and d.event.wait else "-"
    file = s.ref_counter_file if s.ref_counter_file is not None else "-"
    slot = str(s.ref_counter_offset) if s.ref_counter_offset is not None else "-"
    return " ".join((uuid, s.handle.hex(), str(s.storage_offset_bytes), str(d.bytes), event, file, slot))


def steady_paths(path: str | Path, rounds: int) -> list[str]:
    """The files of the steady rounds of a scale share file: ``PATH.1`` to ``PATH.ROUNDS``."""
    return [f"{path}.{k}" for k in range(1, rounds + 1)]


def median_us(samples_ns: list[int]) -> float:
    return statistics.median(samples_ns) / 1e3


def record(impl: str, case: str, alloc: str, **fields: Any) -> str:
    """One JSON line of a reader's figures, in the same shape as the Java reader's."""
    return json.dumps({"impl": impl, "case": case, "alloc": alloc, **fields}, separators=(",", ":"))


#: (case, metric, label, target kind, target value): "ratio<=" compares the Java median with the Python one,
#: "us<=" the Java median alone, "local>=" the mapping's bandwidth with the local buffer's (Java side)
ROWS = [
    ("tensor", "first_open_us", "first open", "ratio<=", 1.0),
    ("tensor", "reopen_us", "cached re-open", "us<=", 5.0),
    ("state-dict", "open_us", "whole state dict", "ratio<=", 0.5),
    ("tensor", "copy_gbps_mapped", "read bandwidth, mapped vs local", "local>=", 0.95),
    ("pool", "first_open_us", "pool first import", "ratio<=", 1.0),
]


#: The scale part (case "scale", issue 49's targets): (metric, label, Java reader, target: at most this times torch's
#: reader). "java" is the Java reader started by its own java without any start-up cache, "java-aot" with the JDK AOT
#: cache a training run of it recorded (its runs start with -XX:AOTMode=on, which refuses to start without the cache)
SCALE_ROWS = [
    ("exec_to_open_us", "exec to open, Java, AOT cache", "java-aot", 0.15),
    ("exec_to_open_us", "exec to open, Java, no cache", "java", 0.25),
    ("open_us", "open alone, Java, AOT cache", "java-aot", 0.5),
    ("open_us", "open alone, Java, no cache", "java", 0.5),
    ("steady_round_us", "steady round, Java", "java", 0.3),
]

#: Fields that say what was measured, not figures
SIZES = ("bytes", "tensors", "copy_bytes", "reopens", "blocks", "steady_rounds", "pointer_sum")


def load(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()
            if line.startswith("{")]


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case, allocator and metric: the median over the runs (each a fresh process) of Java and of the Python
    reader, their ratio, the target and whether it is met. Rows without a figure on both sides where one is needed
    are left out."""
    groups: dict[tuple[str, str, str, str], list[float]] = collections.defaultdict(list)
    sizes: dict[tuple[str, str], tuple[int, int]] = {}
    for r in rows:
        if "failed" in r:  # a reader that failed has no figures (the scale part records it; see scale_summary)
            continue
        side = {"java": "java", "driver": "driver", "java-driver": "java-driver"}.get(r["impl"], "python")
        if side == "python" and r["impl"].startswith("java-"):
            continue  # an arm of the Java reader (its AOT cache, say): scale_summary and pool_exec_summary give it
        for key, value in r.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key not in SIZES:
                groups[(r["case"], r["alloc"], key, side)].append(float(value))
        sizes[(r["case"], r["alloc"])] = (r.get("bytes", 0), r.get("tensors", 1))
    out = []
    allocs = sorted({k[1] for k in groups})
    for case, metric, label, kind, target in ROWS:
        for alloc in allocs:
            java = groups.get((case, alloc, metric, "java"))
            if not java:
                continue
            python = groups.get((case, alloc, metric, "python"))
            j = statistics.median(java)
            p = statistics.median(python) if python else None
            row = {"case": case, "alloc": alloc, "metric": metric, "label": label, "runs": len(java),
                   "java": j, "python": p, "bytes": sizes[(case, alloc)][0], "tensors": sizes[(case, alloc)][1]}
            floor = groups.get((case, alloc, metric, "driver"))
            if floor:
                row["driver"] = statistics.median(floor)
            ffm_floor = groups.get((case, alloc, metric, "java-driver"))
            if ffm_floor:
                row["java_driver"] = statistics.median(ffm_floor)
            if kind == "ratio<=":
                if p is None:
                    continue
                row["ratio"] = j / p
                row["target"] = f"java <= {target:g}x python"
                row["met"] = row["ratio"] <= target
            elif kind == "us<=":
                row["ratio"] = j / p if p else None
                row["target"] = f"java <= {target:g} us"
                row["met"] = j <= target
            else:
                local = groups.get((case, alloc, "copy_gbps_local", "java"))
                if not local:
                    continue
                row["local"] = statistics.median(local)
                row["ratio"] = j / row["local"]
                copy_bytes = [r["copy_bytes"] for r in rows if r["case"] == case and r["alloc"] == alloc
                              and "copy_bytes" in r]
                row["bytes"] = max(copy_bytes, default=row["bytes"])
                for side_metric in ("copy_gbps_mapped", "copy_gbps_local"):
                    figures = groups.get((case, alloc, side_metric, "python"))
                    if figures:
                        row["python_" + side_metric.removeprefix("copy_gbps_")] = statistics.median(figures)
                row["target"] = f"mapped >= {target:g}x local"
                row["met"] = row["ratio"] >= target
            out.append(row)
    return out + scale_summary(rows) + pool_exec_summary(rows)


def scale_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The scale part's rows (:data:`SCALE_ROWS`), against torch's reader: see :func:`arm_summary`."""
    return arm_summary(rows, "scale", SCALE_ROWS, "torch")


#: The pool part's figures from each reader's exec (issue 48's target: at most this times cuda.core's import, with
#: the JDK AOT cache a training run recorded): (metric, label, Java reader, target or None)
POOL_EXEC_ROWS = [
    ("exec_to_open_us", "pool import from exec, Java, AOT cache", "java-aot", 1.0),
    ("exec_to_open_us", "pool import from exec, Java, no cache", "java", None),
]


def pool_exec_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pool part's rows from exec (:data:`POOL_EXEC_ROWS`), against cuda.core's reader: see :func:`arm_summary`."""
    return arm_summary(rows, "pool", POOL_EXEC_ROWS, "cuda.core")


def arm_summary(rows: list[dict[str, Any]], case: str, spec: list[tuple[str, str, str, float | None]],
                peer: str) -> list[dict[str, Any]]:
    """The rows of ``spec`` (metric, label, Java reader, target: at most this times the peer's, or None for none) for
    the lines of ``case``: per allocator and metric, the median over the runs of the Java reader of the row, of the
    ``peer``'s reader (``python``) and of the C program (``c``, where it has the metric), the ratio of Java's to the
    peer's and whether the target is met. A further arm of the Java reader without a cache (``SCALE_ARM=NAME=...``:
    impl ``java-NAME``) gets the rows of ``java`` but the steady round's, held to the same targets. A reader that
    failed left a line with ``failed`` (its exit and last words) instead of figures: where the peer's reader failed in
    every run, the row has Java's figure, no ratio, ``met`` None and ``python_failed`` saying so (with some runs
    failed, the medians are of the others, and ``python_failed`` says how many). Rows without Java's figure, or
    without the peer's figure or failure, are left out."""
    groups: dict[tuple[str, str, str], list[float]] = collections.defaultdict(list)
    failures: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    sizes: dict[str, tuple[int, int]] = {}
    for r in rows:
        if r.get("case") != case:
            continue
        if "failed" in r:
            failures[(r["alloc"], r["impl"])].append(str(r["failed"]))
            continue
        for key, value in r.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key not in SIZES:
                groups[(r["alloc"], key, r["impl"])].append(float(value))
        if r["impl"] == peer or r["alloc"] not in sizes:  # (a failed reader's line has no sizes)
            sizes[r["alloc"]] = (r.get("bytes", 0), r.get("tensors", 1))
    out = []
    arms = sorted({impl for (_, _, impl) in groups if impl.startswith("java-") and impl != "java-aot"})
    rows_of = spec + [(metric, f"{label}, {arm[5:]}", arm, target) for arm in arms
                      for metric, label, impl, target in spec if impl == "java" and metric != "steady_round_us"]
    for metric, label, impl, target in rows_of:
        for alloc in sorted(sizes):
            java, theirs = groups.get((alloc, metric, impl)), groups.get((alloc, metric, peer))
            failed = failures.get((alloc, peer), [])
            if not java or not (theirs or failed):
                continue
            j = statistics.median(java)
            p = statistics.median(theirs) if theirs else None
            row = {"case": case, "alloc": alloc, "metric": metric, "label": label, "arm": impl, "runs": len(java),
                   "java": j, "python": p, "bytes": sizes[alloc][0], "tensors": sizes[alloc][1],
                   "ratio": j / p if p else None, "target": "-" if target is None else f"java <= {target:g}x {peer}",
                   "met": j / p <= target if p and target is not None else None}
            if failed:
                row["python_failed"] = (f"{len(failed)} of {len(failed) + len(theirs or [])} runs failed, the first:"
                                        f" {failed[0]}")
            c = groups.get((alloc, metric, "c"))
            if c:
                row["c"] = statistics.median(c)
            c_failed = failures.get((alloc, "c"), [])
            if c_failed and metric != "steady_round_us":
                row["c_failed"] = (f"{len(c_failed)} of {len(c_failed) + len(c or [])} runs failed, the first:"
                                   f" {c_failed[0]}")
            out.append(row)
    return out


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):g} {unit}"
    return f"{n} B"


def table(summary: list[dict[str, Any]]) -> str:
    """The summary as text: one line per row."""
    head = f"{'case':60} {'alloc':5} {'runs':>4} {'java':>12} {'python':>12} {'ratio':>7}  {'target':26} met"
    lines = [head, "-" * len(head)]
    for r in summary:
        unit = "GB/s" if r["metric"].startswith("copy_gbps") else "us"
        scale = 1.0
        if r["case"] == "scale" or r["metric"] == "exec_to_open_us":  # shown in ms (the JSON keeps us)
            unit, scale = "ms", 1e-3
        what = f"{r['label']} ({_size(r['bytes'])}" + (f", {r['tensors']} tensors)" if r["tensors"] > 1 else ")")
        python = r.get("local") if r["metric"] == "copy_gbps_mapped" else r["python"]
        py = "-" if python is None else f"{python * scale:.1f} {unit}"
        ratio = "-" if r.get("ratio") is None else f"{r['ratio']:.3f}"
        met = "-" if r["met"] is None else "yes" if r["met"] else "NO"
        lines.append(f"{what:60} {r['alloc']:5} {r['runs']:>4} {r['java'] * scale:>7.1f} {unit:4} {py:>12} {ratio:>7}  "
                     f"{r['target']:26} {met}")
        if r.get("python_failed"):
            lines.append(f"  torch's reader: {r['python_failed']}")
        if r.get("c_failed"):
            lines.append(f"  the C program: {r['c_failed']}")
        if r.get("c") is not None:
            lines.append(f"  the C program (the driver calls alone): {r['c'] * scale:.1f} {unit}")
        if r.get("driver") is not None:
            lines.append(f"  the driver's calls of the Java reader alone (cuda.bindings): {r['driver']:.1f} us")
        if r.get("java_driver") is not None:
            lines.append(f"  the same calls through the Java binding (FFM): {r['java_driver']:.1f} us")
        if "python_mapped" in r and "python_local" in r:
            lines.append(f"  torch's copy_ for reference: mapped {r['python_mapped']:.1f}, local"
                         f" {r['python_local']:.1f} GB/s")
    lines.append("python: torch's own reader (rebuild_cuda_tensor) for tensor, state dict and scale, cuda.core's own"
                 " import for pool; for the bandwidth row the column is the Java side's local buffer")
    if any(r["case"] == "scale" for r in summary):
        lines.append("scale: each reader from its process's exec; Java started by its own java, with no start-up cache"
                     " or with the JDK AOT cache its training run recorded (-XX:AOTCache, -XX:AOTMode=on)")
    return "\n".join(lines)


#: The Java reader's phase fields: first_open_PHASE_us, reopen_PHASE_us (medians per process), open_PHASE_us (state
#: dict, summed over its opens), the pool's pidfd_us, pool_import_us, pointer_import_us, and the classes
#: loaded while the clock ran (first_open_classes_loaded, open_classes_loaded); the driver floors' rows (cuda.bindings
#: and the Java binding) carry the same phase fields for the calls they make, the Java one address_range_us too
PHASE_PREFIXES = ("first_open_", "reopen_", "open_")
POOL_PHASES = ("pidfd_us", "pool_import_us", "pointer_import_us")


def phases(rows: list[dict[str, Any]]) -> str:
    """Where the Java reader's time goes, and the driver floor's calls beside it: per reader, case and allocator, the
    median over the runs of each phase field."""
    groups: dict[tuple[str, str], dict[str, list[float]]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        if r.get("impl") not in ("java", "driver", "java-driver"):
            continue
        for key, value in r.items():
            phase = key.endswith("_us") and key.startswith(PHASE_PREFIXES) and key not in ("first_open_us", "open_us", "reopen_us")
            if (phase or key in POOL_PHASES or key.endswith("_classes_loaded")
                    or key == "address_range_us"):
                groups[(r["impl"], r["case"], r["alloc"])][key].append(float(value))
    lines = []
    order = {"java": 0, "driver": 1, "java-driver": 2}
    for (impl, case, alloc), fields in sorted(groups.items(), key=lambda g: (order[g[0][0]], g[0])):
        parts = [f"{k} {statistics.median(v):g} classes" if k.endswith("_classes_loaded")
                 else f"{k.removesuffix('_us')} {statistics.median(v):.1f}" for k, v in fields.items()]
        who = {"java": "java phases", "driver": "its driver calls alone (cuda.bindings)",
               "java-driver": "its driver calls alone (FFM)"}[impl]
        lines.append(f"{who}, {case} ({alloc}), us: " + ", ".join(parts))
    return "\n".join(lines)


# --- GPU parts ---------------------------------------------------------------------------------------------------


def _load_weight_sync() -> Any:
    spec = importlib.util.spec_from_file_location("weight_sync", WEIGHT_SYNC)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_producer(tensors: int, seed: int) -> int:
    """Shares fresh copies on request, so that every reader process opens shares of its own and the producer's
    events and slots are all given back (``release``) before the next reader."""
    import resource
    import torch
    import cudaipc4j
    # An expandable segment's shared chunk keeps an exported fd here: thousands of tensors take hundreds of them.
    _, most = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (most, most))
    torch.cuda.init()
    masters = _load_weight_sync().state_dict(tensors, seed)
    scale_masters: dict[tuple[int, int, int, int], list[Any]] = {}
    current: list[Any] = []
    shared: list[Any] = []  # the descriptors of the current share
    alloc = "e" if "expandable_segments:true" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").lower() else "c"
    print(json.dumps({"ready": os.getpid(), "alloc": alloc, "tensors": len(masters),
                      "bytes": sum(t.numel() * t.element_size() for t in masters.values())}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "share":
            what, path = words[1], words[2]
            if what in ("tensor", "bw"):
                size = parse_bytes(words[3])
                shares = 1 + (int(words[4]) if what == "tensor" else 0)
                t = torch.randn(size // 4, device="cuda", dtype=torch.float32)
                current.append(t)
                lines = [to_json(cudaipc4j.share(t)) for _ in range(shares)]
            elif what == "state-dict":
                copies = [t.clone() for t in masters.values()]
                current.extend(copies)
                descriptors = [cudaipc4j.share(t) for t in copies]
                shared.extend(descriptors)
                lines = [to_json(d) for d in descriptors]
            elif what == "scale":
                count, smallest, largest, scale_seed, steady = (int(words[3]), parse_bytes(words[4]),
                                                                parse_bytes(words[5]), int(words[6]), int(words[7]))
                key = (count, smallest, largest, scale_seed)
                if key not in scale_masters:
                    gen = torch.Generator(device="cuda").manual_seed(scale_seed)
                    scale_masters[key] = [torch.randn(n // 2, device="cuda", dtype=torch.bfloat16, generator=gen)
                                          for n in scale_sizes(count, smallest, largest, scale_seed)]
                copies = [t.clone() for t in scale_masters[key]]
                current.extend(copies)
                descriptors = [cudaipc4j.share(t) for t in copies]
                shared.extend(descriptors)
                lines = [to_json(d) for d in descriptors]
                write_atomically(f"{path}.lines", [c_line(d) for d in descriptors])
                for steady_path in steady_paths(path, steady):  # the same storages again: the readers' cache hits
                    again = [cudaipc4j.share(t) for t in copies]
                    shared.extend(again)
                    write_atomically(steady_path, [to_json(d) for d in again])
            else:
                raise SystemExit(f"torch-producer: unknown share {what!r}")
            torch.cuda.synchronize()
            write_atomically(path, lines)
            print(f"shared {path}", flush=True)
        elif words[0] == "release":
            if words[1:] == ["dead"]:  # the reader died holding its slots: given back here, as it cannot
                give_back_slots(shared)
            current.clear()
            shared.clear()
            torch.cuda.synchronize()
            torch.cuda.ipc_collect()
            print("released", flush=True)
        elif words[0] == "quit":
            break
        else:
            raise SystemExit(f"torch-producer: unknown command {line.strip()!r}")
    current.clear()
    del masters
    torch.cuda.synchronize()
    torch.cuda.ipc_collect()
    return 0


def give_back_slots(descriptors: list[Any]) -> None:
    """Sets the counter slot of each torch share of ``descriptors`` to 0, as its reader gives it back (torch's
    producer frees a shared block once its slots are 0): for a reader that died (torch's own cannot give a dead
    reader's slots back). A counter file gone is skipped."""
    header, files = 64, collections.defaultdict(list)
    for d in descriptors:
        if d.torch is not None and d.torch.ref_counter_file:
            files[d.torch.ref_counter_file].append(d.torch.ref_counter_offset)
    for name, slots in files.items():
        try:
            fd = os.open("/dev/shm" + name, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            for slot in slots:
                os.pwrite(fd, bytes(8), header + 8 * slot)
        finally:
            os.close(fd)


def _torch_device(uuid: str | None) -> int:
    import torch
    from cudaipc4j.sharing import device_uuid_of
    if uuid is None:
        return 0
    for i in range(torch.cuda.device_count()):
        if device_uuid_of(i) == uuid:
            return i
    raise SystemExit(f"torch-reader: device {uuid} is not visible here")


def torch_scale_reader(path: str, steady: list[str], exec_us: int) -> int:
    """torch's reader of the scale part: from its exec (``exec_us``, the script's clock just before exec) to every
    share open, and the open alone (CUDA up and the descriptors parsed before its clock); then each steady round's
    shares (the same storages shared again: cache hits in torch's ``shared_cache``), the round's tensors dropped
    after its clock, the first round's kept open."""
    import torch
    from torch.multiprocessing.reductions import rebuild_cuda_tensor
    descriptors = read_descriptors(path)
    ordinal = _torch_device(descriptors[0].device_uuid)
    torch.cuda.init()
    torch.cuda.set_device(ordinal)
    torch.empty(1, device="cuda")
    calls = [_rebuild_args(torch, d, ordinal) for d in descriptors]
    t0 = time.perf_counter_ns()
    opened = [rebuild_cuda_tensor(*c) for c in calls]
    elapsed = time.perf_counter_ns() - t0
    since_exec = time.time_ns() // 1000 - exec_us
    rounds = []
    for steady_path in steady:
        again = [_rebuild_args(torch, d, ordinal) for d in read_descriptors(steady_path)]
        t0 = time.perf_counter_ns()
        views = [rebuild_cuda_tensor(*c) for c in again]
        rounds.append(time.perf_counter_ns() - t0)
        del views
    torch.cuda.synchronize()
    fields: dict[str, Any] = {"bytes": sum(d.bytes for d in descriptors), "tensors": len(calls),
                              "exec_to_open_us": float(since_exec), "open_us": elapsed / 1e3}
    if rounds:
        fields.update(steady_round_us=median_us(rounds), steady_rounds=len(rounds))
    print(record("torch", "scale", _alloc_of(descriptors[0]), **fields), flush=True)
    del opened
    return 0


def _rebuild_args(torch: Any, d: Descriptor, ordinal: int) -> tuple[Any, ...]:
    """torch's ``rebuild_cuda_tensor`` arguments of a descriptor, for device ``ordinal``."""
    f = rebuild_fields(d)
    return (torch.Tensor, torch.Size(f["shape"]), f["strides"], f["offset"], torch.storage.TypedStorage,
            getattr(torch, f["dtype"]), ordinal, f["handle"], f["storage_bytes"], f["storage_offset_bytes"],
            False, f["ref_counter_handle"], f["ref_counter_offset"],
            # torch takes bytes there even when no event is to be waited on (a share made without one)
            f["event_handle"] if f["event_handle"] is not None else bytes(64), f["event_sync_required"])


def torch_reader(case: str, path: str, bw_path: str | None, iterations: int) -> int:
    import torch
    from torch.multiprocessing.reductions import rebuild_cuda_tensor
    descriptors = read_descriptors(path)
    ordinal = _torch_device(descriptors[0].device_uuid)
    torch.cuda.init()
    torch.cuda.set_device(ordinal)
    torch.empty(1, device="cuda")  # the primary context, current
    torch.cuda.synchronize()

    def args(d: Descriptor) -> tuple[Any, ...]:
        return _rebuild_args(torch, d, ordinal)

    calls = [args(d) for d in descriptors]
    opened = []
    alloc = _alloc_of(descriptors[0])
    total = sum(d.bytes for d in descriptors)
    if case == "tensor":
        t0 = time.perf_counter_ns()
        opened.append(rebuild_cuda_tensor(*calls[0]))
        first = time.perf_counter_ns() - t0
        reopens = []
        for c in calls[1:]:
            t0 = time.perf_counter_ns()
            opened.append(rebuild_cuda_tensor(*c))
            reopens.append(time.perf_counter_ns() - t0)
        fields = {"bytes": descriptors[0].bytes, "tensors": 1, "first_open_us": first / 1e3}
        if reopens:
            fields.update(reopen_us=median_us(reopens), reopens=len(reopens))
        if bw_path is not None:
            fields.update(_torch_bandwidth(rebuild_cuda_tensor(*args(read_descriptors(bw_path)[0])), iterations))
        torch.cuda.synchronize()
        print(record("torch", case, alloc, **fields), flush=True)
    else:
        t0 = time.perf_counter_ns()
        for c in calls:
            opened.append(rebuild_cuda_tensor(*c))
        elapsed = time.perf_counter_ns() - t0
        torch.cuda.synchronize()
        print(record("torch", case, alloc, bytes=total, tensors=len(calls), open_us=elapsed / 1e3), flush=True)
    del opened
    return 0


def _lap_durations(start: int, ends: dict[str, int]) -> dict[str, int]:
    """Each phase's nanoseconds from the clock readings at the end of each phase, in the order they were taken."""
    durations, last = {}, start
    for name, end in ends.items():
        durations[name], last = end - last, end
    return durations


def driver_reader(case: str, path: str) -> int:
    """The Java reader's driver calls alone, through cuda.bindings: each distinct block's ``cuIpcOpenMemHandle``
    and, per share that asks for it, ``cuIpcOpenEventHandle``, ``cuStreamWaitEvent``, ``cuEventDestroy``; timed as
    the readers are (fresh process, context current, descriptors parsed and handles built before the clock). What no
    reader that keeps the contract can go below. Legacy ('c') shares only. The slots are given back after the clock,
    as a reader's close does."""
    from cuda.bindings import driver as cu
    from cudaipc4j.torch_counters import give_back_all

    def ok(result: Any) -> Any:
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != cu.CUresult.CUDA_SUCCESS:
            raise SystemExit(f"driver-reader: {cu.cuGetErrorName(err)[1].decode()}")
        return rest[0] if len(rest) == 1 else rest

    descriptors = read_descriptors(path)
    fields = [rebuild_fields(d) for d in descriptors]
    if any(len(f["handle"]) not in (64, 66) or (len(f["handle"]) == 66 and f["handle"][1:2] != b"c")
           for f in fields):
        raise SystemExit("driver-reader: legacy ('c') shares only")
    ok(cu.cuInit(0))
    want = descriptors[0].device_uuid.replace("GPU-", "").replace("-", "")
    device = next(d for d in (ok(cu.cuDeviceGet(i)) for i in range(ok(cu.cuDeviceGetCount())))
                  if bytes(ok(cu.cuDeviceGetUuid(d)).bytes).hex() == want)
    context = ok(cu.cuDevicePrimaryCtxRetain(device))
    ok(cu.cuCtxSetCurrent(context))
    stream = ok(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
    ok(cu.cuStreamSynchronize(stream))
    blocks: dict[bytes, Any] = {}
    calls = []
    for f in fields:
        raw = f["handle"][-64:]
        if raw not in blocks:
            blocks[raw] = cu.CUipcMemHandle()
            blocks[raw].reserved = raw
        event = None
        if f["event_sync_required"]:
            event = cu.CUipcEventHandle()
            event.reserved = f["event_handle"]
        calls.append((raw, event))
    flag = cu.CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
    mapped: dict[bytes, Any] = {}
    per_share = []
    # Each call's time, under the Java reader's phase names: the first share's alone and, summed, all shares'.
    laps: list[dict[str, int]] = []
    t0 = time.perf_counter_ns()
    for raw, event in calls:
        s0 = time.perf_counter_ns()
        lap = {}
        if raw not in mapped:
            mapped[raw] = ok(cu.cuIpcOpenMemHandle(blocks[raw], flag))
            lap["ipc_open"] = time.perf_counter_ns()
        if event is not None:
            e = ok(cu.cuIpcOpenEventHandle(event))
            lap["event_open"] = time.perf_counter_ns()
            ok(cu.cuStreamWaitEvent(stream, e, 0))
            lap["event_wait"] = time.perf_counter_ns()
            ok(cu.cuEventDestroy(e))
            lap["event_destroy"] = time.perf_counter_ns()
        per_share.append(time.perf_counter_ns() - s0)
        laps.append(_lap_durations(s0, lap))
    elapsed = time.perf_counter_ns() - t0
    ok(cu.cuStreamSynchronize(stream))
    for pointer in mapped.values():
        ok(cu.cuIpcCloseMemHandle(pointer))
    # torch's counter files: each share's slot given back once, behind the files' 64-byte header
    slots: dict[str, list[int]] = collections.defaultdict(list)
    for f in fields:
        slots[f["ref_counter_handle"].decode()].append(f["ref_counter_offset"])
    for name, taken in slots.items():
        give_back_all(name, taken)
    ok(cu.cuStreamDestroy(stream))
    ok(cu.cuDevicePrimaryCtxRelease(device))
    alloc = _alloc_of(descriptors[0])
    if case == "tensor":
        fields_out = {"bytes": descriptors[0].bytes, "tensors": 1, "first_open_us": per_share[0] / 1e3}
        fields_out.update({f"first_open_{k}_us": v / 1e3 for k, v in laps[0].items()})
        if len(per_share) > 1:
            fields_out.update(reopen_us=median_us(per_share[1:]), reopens=len(per_share) - 1)
    else:
        fields_out = {"bytes": sum(d.bytes for d in descriptors), "tensors": len(calls), "open_us": elapsed / 1e3,
                      "blocks": len(blocks)}
        for lap in laps:
            for k, v in lap.items():
                fields_out[f"open_{k}_us"] = fields_out.get(f"open_{k}_us", 0.0) + v / 1e3
    print(record("driver", case, alloc, **fields_out), flush=True)
    return 0


def _alloc_of(d: Descriptor) -> str:
    handle = d.torch.handle if d.torch is not None else None
    return "e" if handle is not None and len(handle) > 1 and handle[1] == 0x65 else "c"


def _torch_bandwidth(mapped: Any, iterations: int) -> dict[str, float]:
    """torch's copy_ from the mapping into a local tensor against local to local, by CUDA events (for reference
    beside the Java side's figures)."""
    import torch
    src = mapped.view(torch.uint8) if mapped.is_contiguous() else mapped.contiguous().view(torch.uint8)
    local_src = torch.empty_like(src)
    dst = torch.empty_like(src)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    figures: dict[str, list[float]] = {"copy_gbps_mapped": [], "copy_gbps_local": []}
    for _ in range(2):  # warm-up
        dst.copy_(src)
        dst.copy_(local_src)
    for _ in range(BATCHES):
        for key, s in (("copy_gbps_mapped", src), ("copy_gbps_local", local_src)):
            start.record()
            for _ in range(iterations):
                dst.copy_(s)
            stop.record()
            stop.synchronize()
            figures[key].append(src.numel() * iterations / (start.elapsed_time(stop) / 1e3) / 1e9)
    return {k: statistics.median(v) for k, v in figures.items()}


def _cuda_core() -> Any:
    try:
        import cuda.core as core
        core.DeviceMemoryResource  # noqa: B018 - the 1.x layout
    except (ImportError, AttributeError):
        import cuda.core.experimental as core
    return core


def _ipc_buffer_descriptor(export: bytes, size: int) -> Any:
    for module in ("cuda.core._memory._ipc", "cuda.core._memory", "cuda.core.experimental._memory._ipc",
                   "cuda.core.experimental._memory"):
        try:
            cls = getattr(__import__(module, fromlist=["IPCBufferDescriptor"]), "IPCBufferDescriptor")
        except (ImportError, AttributeError):
            continue
        return cls._init(export, size)
    raise SystemExit("pool-reader: this cuda.core has no IPCBufferDescriptor")


def pool_producer(path: str, size: int) -> int:
    from cuda.bindings import driver as cu
    from cudaipc4j._cuda import check
    from cudaipc4j.devices import visible_devices
    from cudaipc4j.pidfd import pid_namespace
    core = _cuda_core()
    device = core.Device(0)
    device.set_current()
    mr = core.DeviceMemoryResource(device, core.DeviceMemoryResourceOptions(ipc_enabled=True,
                                                                            max_size=max(size, 1 << 21)))
    stream = device.create_stream()
    buffer = mr.allocate(size, stream=stream)
    check(cu.cuMemsetD8(int(buffer.handle), 0x5A, size), "cuMemsetD8")
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    _, (export, _size) = buffer.ipc_descriptor.__reduce__()
    handle = mr.allocation_handle
    fd = handle if isinstance(handle, int) else int(handle)
    uuid = dict(visible_devices())[0]
    write_atomically(path, [to_json(pool_descriptor(size, fd, bytes(export), uuid, os.getpid(), pid_namespace(),
                                                    id(mr) & 0x7FFFFFFF))])
    print(json.dumps({"ready": os.getpid(), "bytes": size}), flush=True)
    sys.stdin.read()  # exported until the script closes stdin
    buffer.close(stream)
    stream.sync()
    mr.close()
    return 0


def pool_reader(path: str, exec_us: int | None = None) -> int:
    from cudaipc4j import pidfd
    from cudaipc4j.devices import ordinal_of
    d = read_descriptors(path)[0]
    core = _cuda_core()
    device = core.Device(ordinal_of(d.device_uuid))
    device.set_current()
    stream = device.create_stream()
    t0 = time.perf_counter_ns()
    fd = pidfd.take_fds(d.exporter.pid, d.fd_numbers)[0]
    mr = core.DeviceMemoryResource.from_allocation_handle(device, fd)
    try:
        buffer = core.Buffer.from_ipc_descriptor(mr, _ipc_buffer_descriptor(d.pointer_export, d.bytes), stream=stream)
    except TypeError:  # releases before 1.x took no stream
        buffer = core.Buffer.from_ipc_descriptor(mr, _ipc_buffer_descriptor(d.pointer_export, d.bytes))
    elapsed = time.perf_counter_ns() - t0
    since_exec = None if exec_us is None else time.time_ns() // 1000 - exec_us
    os.close(fd)
    fields: dict[str, Any] = {"bytes": d.bytes, "tensors": 1, "first_open_us": elapsed / 1e3}
    if since_exec is not None:
        fields["exec_to_open_us"] = float(since_exec)
    print(record("cuda.core", "pool", "pool", **fields), flush=True)
    buffer.close(stream)
    stream.sync()
    mr.close()
    return 0


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    mode, rest = argv[1], argv[2:]
    if mode == "torch-producer" and len(rest) == 2:
        return torch_producer(int(rest[0]), int(rest[1]))
    if mode == "torch-reader" and len(rest) == 4 and rest[0] == "scale" and rest[3].isdigit():
        return torch_scale_reader(rest[1], [] if rest[2] == "-" else rest[2].split(","), int(rest[3]))
    if mode == "torch-reader" and len(rest) in (2, 4) and rest[0] in ("tensor", "state-dict"):
        return torch_reader(rest[0], rest[1], rest[2] if len(rest) == 4 else None,
                            int(rest[3]) if len(rest) == 4 else 0)
    if mode == "driver-reader" and len(rest) == 2 and rest[0] in ("tensor", "state-dict"):
        return driver_reader(rest[0], rest[1])
    if mode == "pool-producer" and len(rest) == 2:
        return pool_producer(rest[0], parse_bytes(rest[1]))
    if mode == "pool-reader" and (len(rest) == 1 or (len(rest) == 2 and rest[1].isdigit())):
        return pool_reader(rest[0], int(rest[1]) if len(rest) == 2 else None)
    if mode == "failed" and len(rest) == 4:  # a reader that failed: its line, in the figures' shape
        print(record(rest[0], rest[1], rest[2], failed=rest[3]))
        return 0
    if mode == "summary" and len(rest) in (1, 2):
        rows = load(rest[0])
        summary = summarize(rows)
        print(table(summary))
        breakdown = phases(rows)
        if breakdown:
            print(breakdown)
        if len(rest) == 2:
            Path(rest[1]).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
