"""What every test of the package runs under, the same under unittest and pytest: pytest runs a unittest.TestCase
through unittest's own ``run()``, so the rules below, kept there, hold under both.

- A test fails when a release of its tensors failed in a finalizer (which cannot raise: cudaipc4j.opening keeps the
  error for the next ``open``, by then another test's).
- A test marked :func:`gpu` is skipped, with the reason, where no GPU, torch or cuda.bindings is found; under
  ``CUDAIPC4J_REQUIRE_GPU=1`` a GPU test that does not run, skipped for any reason, fails instead (gpu_policy.py).
- A GPU test fails when a CUDA driver file of an ended process is left after it (driver_files.py); the test
  process's own are removed once it has ended.
"""
from __future__ import annotations

import atexit
import functools
import gc
import math
import os
import sys
import tempfile
import unittest
from pathlib import Path
from types import ModuleType
from typing import Any

from . import driver_files, gpu_policy, outcomes

# pytest's marker matters to pytest alone, which has imported itself before any test module; unittest's runs leave
# it out (and do not pay its import)
pytest = sys.modules.get("pytest")

_GPU = "cudaipc4j_gpu"


def gpu(test: Any) -> Any:
    """Marks a test method or a TestCase class as a GPU test: pytest's marker ``gpu`` (``pytest -m gpu``), and an
    attribute that the rules of :class:`TestCase` and unittest's selection (:func:`load_tests_of`) read."""
    setattr(test, _GPU, True)
    return pytest.mark.gpu(test) if pytest is not None else test


def is_gpu(test: unittest.TestCase) -> bool:
    method = getattr(test, test._testMethodName, None)
    return bool(getattr(method, _GPU, False) or getattr(type(test), _GPU, False))


MARK_VARIABLE = "CUDAIPC4J_TEST_MARK"


def load_tests_of(package_file: str) -> Any:
    """unittest's ``load_tests`` for the package of ``package_file``: its discovery, narrowed to the GPU tests
    (``gpu``) or to the others (``not gpu``) when CUDAIPC4J_TEST_MARK says so, as pytest's ``-m`` does with the
    marker :func:`gpu` applies (pytest does not call load_tests)."""
    def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern: str | None) -> unittest.TestSuite:
        mark = os.environ.get(MARK_VARIABLE, "")
        if mark not in ("", "gpu", "not gpu"):
            raise ValueError(f"{MARK_VARIABLE} must be gpu or 'not gpu' (as pytest's -m), got {mark!r}")
        found = loader.discover(start_dir=os.path.dirname(package_file), pattern=pattern or "test*.py")
        for test in _each(found):
            # unittest's stand-ins for modules that failed to import are no TestCase of ours: kept, so that a
            # broken module is never left out unnoticed
            if not mark or not isinstance(test, TestCase) or is_gpu(test) == (mark == "gpu"):
                tests.addTest(test)
        return tests
    return load_tests


def _each(suite: unittest.TestSuite) -> Any:
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _each(test)
        else:
            yield test


class TestCase(unittest.TestCase):
    """The base of every test here (test_support.py checks that none escapes it)."""

    def run(self, result: unittest.TestResult | None = None) -> unittest.TestResult | None:
        gpu_test = is_gpu(self)
        if gpu_test:
            reason = gpu_policy.unavailable_reason()
            if reason is not None:
                # skipped before the test's own setUp, which may need the GPU already
                self.setUp = functools.partial(self.skipTest, reason)  # type: ignore[method-assign]
            if result is not None and gpu_policy.required():
                result = _SkipsFail(result)
            before = driver_files.names()
        # cleanups run last added first: these two run after the test's own, the release check last
        self.addCleanup(self._releases_succeeded)
        if gpu_test:
            self.addCleanup(self._no_driver_file_left, before)
        return super().run(result)

    def _releases_succeeded(self) -> None:
        opening = sys.modules.get("cudaipc4j.opening")
        if opening is None:
            return
        gc.collect()  # the test's tensors in reference cycles die here
        errors = list(opening._cleanup_errors)
        opening._cleanup_errors.clear()
        if errors:
            self.fail("a release in a finalizer failed during this test: "
                      + "; ".join(f"{type(e).__name__}: {e}" for e in errors))

    def _no_driver_file_left(self, before: set[str]) -> None:
        left = driver_files.left_since(before)
        for name in left:
            (driver_files.DIRECTORY / name).unlink(missing_ok=True)
        if left:
            self.fail(f"CUDA driver files of ended processes left in {driver_files.DIRECTORY} (removed now): {left}")

    def temporary_directory(self) -> Path:
        """A folder of this test's own, removed after it."""
        return Path(self.enterContext(tempfile.TemporaryDirectory(prefix="cudaipc4j-test-")))

    def patch_modules(self, modules: dict[str, ModuleType | None]) -> None:
        """Puts ``modules`` into sys.modules for this test (None: an import of it fails). Only those names are put
        back afterwards: what the test imported meanwhile stays imported, so no module is ever loaded twice."""
        for name, module in modules.items():
            self.addCleanup(_put_back, name, sys.modules.get(name, _ABSENT))
            sys.modules[name] = module  # type: ignore[assignment]

    def skip_unless_available(self, runner: str) -> None:
        """Skips (the subtest of) ``runner`` where this interpreter cannot run it: pytest, where it is not there."""
        if runner == "pytest" and not outcomes.pytest_available():
            self.skipTest(f"{sys.executable} cannot import pytest")

    def suite_outcomes(self, runner: str, source: str, env: dict[str, str] | None = None) -> outcomes.Run:
        """Runs ``source``, a test module of its own (it imports tests.support as any test here), under
        ``runner`` in a child process, in a folder of this test's own."""
        folder = self.temporary_directory()
        (folder / "test_suite.py").write_text(source, encoding="utf-8")
        return outcomes.run(runner, folder, env=env)

    def assertApprox(self, got: float, expected: float) -> None:
        """pytest.approx's default: within a millionth of ``expected``, or 1e-12."""
        self.assertTrue(math.isclose(got, expected, rel_tol=1e-6, abs_tol=1e-12), f"{got} is not about {expected}")


_ABSENT = object()


def _put_back(name: str, module: Any) -> None:
    if module is _ABSENT:
        sys.modules.pop(name, None)
    else:
        sys.modules[name] = module


class _SkipsFail:
    """A GPU test's result under CUDAIPC4J_REQUIRE_GPU=1: a skip, its own or its subtest's, is reported as a
    failure; everything else goes to the runner's result unchanged."""

    def __init__(self, result: unittest.TestResult) -> None:
        self._result = result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._result, name)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        _, message = gpu_policy.skip_outcome(reason, True)
        try:
            raise AssertionError(message)
        except AssertionError:
            error = sys.exc_info()
        parent = getattr(test, "test_case", None)  # a subtest names its test
        if parent is not None:
            self._result.addSubTest(parent, test, error)
        else:
            self._result.addFailure(test, error)


def _remove_own_driver_files() -> None:
    """This process shares tensors in some tests, and torch leaves its driver file behind at exit: a process of its
    own removes it once this one has ended (the driver uses it until then)."""
    if driver_files.of(os.getpid()):
        driver_files.remove_after_exit(os.getpid())


atexit.register(_remove_own_driver_files)
