"""Makes the package importable without installing it, and applies gpu_policy to tests marked ``gpu``."""
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
