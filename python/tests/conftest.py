"""Makes the package importable without installing it, applies gpu_policy to tests marked ``gpu``, and fails the test
whose tensors' release failed in a finalizer."""
import gc
import sys
from pathlib import Path

import pytest

_PYTHON = str(Path(__file__).resolve().parents[1])
if _PYTHON not in sys.path:
    sys.path.insert(0, _PYTHON)

import gpu_policy  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU, torch and cuda.bindings; skipped without them"
                                       f" unless {gpu_policy.REQUIRE_VARIABLE}=1, which makes that a failure")
    gpu_policy.required()  # a bad value stops the run at once


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
