"""Each test's outcome under unittest and under pytest, by one id: unittest's (``module.Class.method``), and for a
subtest that id, a space and unittest's description of it (``[message] (name=value, ...)``). :func:`run` runs a
folder of tests under either runner in a child process: scripts/compare-python-runners.py compares the two on this
folder, and the tests of support.py's rules run small suites under both.

A child is the runner's own entry point (``unittest.main``, ``pytest.main``) with a result, or a plugin, that also
writes each outcome as a JSON line to a file. Outcomes are passed, failed (unittest's failures and errors, pytest's
failed phases) or skipped; a test whose subtest failed has failed.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import traceback
import unittest
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PYTHON_DIR = Path(__file__).resolve().parents[1]
RUNNERS = ("unittest", "pytest")
_RANK = {"passed": 0, "skipped": 1, "failed": 2}


@dataclass(frozen=True)
class Outcome:
    outcome: str  # passed, failed or skipped
    message: str = ""  # a skip's reason, a failure's report


@dataclass(frozen=True)
class Run:
    runner: str
    returncode: int
    output: str
    tests: dict[str, Outcome]
    subtests: dict[str, Outcome]
    repeated: tuple[str, ...]  # subtests reported more than once under one id, which counts hide


def pytest_available() -> bool:
    return importlib.util.find_spec("pytest") is not None


def run(runner: str, start: Path, top: Path | None = None, *, args: Sequence[str] = (), cwd: Path | None = None,
        env: dict[str, str] | None = None, timeout: float = 600) -> Run:
    """Runs the tests under ``start`` (``top``: unittest's top-level folder, the start by default) with this
    interpreter and ``runner`` given ``args`` too, in ``cwd`` (the start by default), python/ on PYTHONPATH and
    ``env`` added."""
    top = top or start
    with tempfile.TemporaryDirectory(prefix="cudaipc4j-outcomes-") as folder:
        report = Path(folder) / "outcomes.jsonl"
        if runner == "unittest":
            args = ["discover", "-s", str(start), "-t", str(top), *args]
        elif runner == "pytest":
            args = ["-q", "-p", "no:cacheprovider", *args, str(start)]
        else:
            raise ValueError(f"runner must be one of {RUNNERS}, got {runner!r}")
        child_env = {**os.environ, **(env or {})}
        child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYTHON_DIR), child_env.get("PYTHONPATH")]))
        # this file loaded by path, so that the child imports nothing of the tests before its runner does
        boot = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('cudaipc4j_outcomes',"
                " sys.argv[1]); m = sys.modules[spec.name] = importlib.util.module_from_spec(spec);"
                " spec.loader.exec_module(m); m.child(sys.argv[2], sys.argv[3], sys.argv[4:])")
        done = subprocess.run([sys.executable, "-c", boot, __file__, runner, str(report), *args], cwd=cwd or start,
                              env=child_env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
        records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()] \
            if report.exists() else []
    tests, subtests = _merge(records)
    ids = [r["id"] for r in records if r["parent"] is not None]
    repeated = tuple(sorted({i for i in ids if ids.count(i) > 1}))
    return Run(runner, done.returncode, done.stdout + done.stderr, tests, subtests, repeated)


def _merge(records: list[dict[str, Any]]) -> tuple[dict[str, Outcome], dict[str, Outcome]]:
    """The outcome of each test and subtest, from the records of either runner: a test's own (pytest reports a test
    whose subtest failed as passed, unittest reports nothing for it) made worse by any of its subtests'."""
    own: dict[str, Outcome] = {}
    subtests: dict[str, Outcome] = {}
    parents: dict[str, list[str]] = {}
    for r in records:
        table = own if r["parent"] is None else subtests
        table[r["id"]] = _worse(table.get(r["id"]), Outcome(r["outcome"], r["message"]))
        if r["parent"] is not None:
            parents.setdefault(r["parent"], []).append(r["id"])
    tests = {}
    for test in sorted(set(own) | set(parents)):
        outcome = own.get(test, Outcome("passed"))
        failed = [subtests[s] for s in parents.get(test, []) if subtests[s].outcome == "failed"]
        tests[test] = failed[0] if failed else outcome
    return tests, subtests


def _worse(a: Outcome | None, b: Outcome) -> Outcome:
    return b if a is None or _RANK[b.outcome] > _RANK[a.outcome] else a


def describe(message: Any, params: dict[str, Any]) -> str:
    """A subtest as unittest describes it: ``[message] (name=value, ...)``."""
    parts = [] if message is None else [f"[{message}]"]
    if params:
        parts.append("(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")")
    return " ".join(parts) or "(<subtest>)"


def child(runner: str, report: str, args: list[str]) -> None:
    """The child's side: ``runner``'s own entry point, each outcome also written to ``report``."""
    writer = _Writer(report)
    if runner == "unittest":
        _UnittestRecorder.writer = writer
        unittest.main(module=None, argv=["python -m unittest", *args],
                      testRunner=unittest.TextTestRunner(resultclass=_UnittestRecorder))
    else:
        import pytest
        sys.exit(int(pytest.main(args, plugins=[_PytestRecorder(writer)])))


class _Writer:
    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, test: str, outcome: str, message: str = "", parent: str | None = None) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"id": test, "parent": parent, "outcome": outcome, "message": message}) + "\n")


class _UnittestRecorder(unittest.TextTestResult):
    writer: _Writer

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self.writer(test.id(), "passed")

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        super().addFailure(test, err)
        self.writer(test.id(), "failed", "".join(traceback.format_exception(*err)))

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        super().addError(test, err)
        self.writer(test.id(), "failed", "".join(traceback.format_exception(*err)))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        parent = getattr(test, "test_case", None)  # a subtest names its test
        self.writer(test.id(), "skipped", reason, None if parent is None else parent.id())

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is None:
            self.writer(subtest.id(), "passed", parent=test.id())
        else:
            self.writer(subtest.id(), "failed", "".join(traceback.format_exception(*err)), test.id())


class _PytestRecorder:
    """A pytest plugin: the unittest id of each collected test, and its phases' outcomes as one."""

    def __init__(self, writer: _Writer) -> None:
        self.writer = writer
        self.ids: dict[str, str] = {}
        self.phases: dict[str, Outcome] = {}

    def pytest_itemcollected(self, item: Any) -> None:
        cls = getattr(item, "cls", None)
        owner = f"{cls.__module__}.{cls.__qualname__}" if cls is not None else item.module.__name__
        self.ids[item.nodeid] = f"{owner}.{item.name}"

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.writer(report.nodeid, "failed", str(report.longrepr))

    def pytest_runtest_logreport(self, report: Any) -> None:
        test = self.ids.get(report.nodeid, report.nodeid)
        context = getattr(report, "context", None)  # pytest's report of a unittest subtest
        outcome = Outcome("failed", str(report.longrepr)) if report.failed else \
            Outcome("skipped", _reason(report.longrepr)) if report.skipped else Outcome("passed")
        if context is not None:
            self.writer(f"{test} {describe(context.msg, dict(context.kwargs))}", outcome.outcome, outcome.message,
                        test)
            return
        self.phases[test] = _worse(self.phases.get(test), outcome)
        if report.when == "teardown":
            done = self.phases.pop(test)
            self.writer(test, done.outcome, done.message)


def _reason(longrepr: Any) -> str:
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")
