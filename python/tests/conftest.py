"""Makes the package importable without installing it, applies gpu_policy to tests marked ``gpu``, fails the test
whose tensors' release failed in a finalizer, and fails a ``gpu`` test after which a CUDA driver file of an ended
process is left (driver_files.py)."""
import gc
import os
import sys
from pathlib import Path

import pytest

_PYTHON = str(Path(__file__).resolve().parents[1])
if _PYTHON not in sys.path:
    sys.path.insert(0, _PYTHON)

import driver_files  # noqa: E402
import gpu_policy  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU, torch and cuda.bindings; skipped without them"
                                       f" unless {gpu_policy.REQUIRE_VARIABLE}=1, which makes that a failure")
    gpu_policy.required()  # a bad value stops the run at once


def pytest_unconfigure(config):
    """This process shares tensors in some tests, and torch leaves its driver file behind at exit: a process of its
    own removes it once this one has ended (the driver uses it until then)."""
    if driver_files.of(os.getpid()):
        driver_files.remove_after_exit(os.getpid())


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is not None:
        reason = gpu_policy.unavailable_reason()
        if reason is not None:
            pytest.skip(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.get_closest_marker("gpu") is not None and gpu_policy.required():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        status, message = gpu_policy.skip_outcome(reason.removeprefix("Skipped: "), True)
        report.outcome = status
        report.longrepr = message


@pytest.fixture(autouse=True)
def _releases_in_finalizers_succeed():
    """Fails the test whose tensors' release failed. A release runs from a finalizer, which cannot raise, so
    cudaipc4j.opening keeps the error for the next ``open`` - by then another test. The test's tensors die at its
    end (the collection below catches those in cycles); what failed is reported, and cleared, here."""
    yield
    opening = sys.modules.get("cudaipc4j.opening")
    if opening is None:
        return
    gc.collect()
    errors = list(opening._cleanup_errors)
    opening._cleanup_errors.clear()
    if errors:
        pytest.fail("a release in a finalizer failed during this test: "
                    + "; ".join(f"{type(e).__name__}: {e}" for e in errors), pytrace=False)


@pytest.fixture(autouse=True)
def _no_driver_file_left(request):
    """Fails a ``gpu`` test after which a CUDA driver file is left that was not there before it and whose process has
    ended (a child's: the test removes those of its children once they have ended); removes them."""
    if request.node.get_closest_marker("gpu") is None:
        yield
        return
    before = driver_files.names()
    yield
    left = driver_files.left_since(before)
    for name in left:
        (driver_files.DIRECTORY / name).unlink(missing_ok=True)
    if left:
        pytest.fail(f"CUDA driver files of ended processes left in {driver_files.DIRECTORY} (removed now): {left}",
                    pytrace=False)
