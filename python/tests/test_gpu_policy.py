"""The rule for tests marked gpu, checked without a GPU: skipped with a reason, or failed under
CUDAIPC4J_REQUIRE_GPU=1 (the GPU machine), whatever made them skip."""
from pathlib import Path

import pytest

import gpu_policy

CONFTEST = (Path(__file__).parent / "conftest.py").read_text(encoding="utf-8")


def test_required_reads_the_variable():
    assert gpu_policy.required({}) is False
    assert gpu_policy.required({"CUDAIPC4J_REQUIRE_GPU": "0"}) is False
    assert gpu_policy.required({"CUDAIPC4J_REQUIRE_GPU": "1"}) is True
    with pytest.raises(ValueError, match="must be 1"):
        gpu_policy.required({"CUDAIPC4J_REQUIRE_GPU": "yes"})


def test_skip_outcome():
    assert gpu_policy.skip_outcome("no torch", False) == ("skipped", "no torch")
    status, message = gpu_policy.skip_outcome("no torch", True)
    assert status == "failed" and "CUDAIPC4J_REQUIRE_GPU=1" in message and "no torch" in message


SUITE = """
import pytest
import gpu_policy

@pytest.mark.gpu
def test_needs_gpu():
    pass

@pytest.mark.gpu
def test_skips_itself():
    pytest.skip("cupy is not installed")

def test_plain():
    pass

def test_plain_skip():
    pytest.skip("not a gpu test")
"""


def _run(pytester, monkeypatch, require, unavailable):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(gpu_policy=(Path(__file__).parent / "gpu_policy.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_suite=SUITE)
    monkeypatch.setenv("CUDAIPC4J_REQUIRE_GPU", require)
    # the conftest under test asks gpu_policy; make it see (or not see) a GPU without importing torch
    pytester.makepyfile(sitecustomize="")
    pytester.makeconftest(CONFTEST.replace("import gpu_policy  # noqa: E402",
                                           "import gpu_policy  # noqa: E402\n"
                                           f"gpu_policy.unavailable_reason = lambda: {unavailable!r}"))
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rsf")


def test_without_a_gpu_gpu_tests_are_skipped_with_the_reason(pytester, monkeypatch):
    r = _run(pytester, monkeypatch, "0", "torch is not installed")
    r.assert_outcomes(passed=1, skipped=3)
    r.stdout.fnmatch_lines(["SKIPPED [[]2[]] *torch is not installed*"])


def test_required_gpu_tests_that_cannot_run_fail(pytester, monkeypatch):
    r = _run(pytester, monkeypatch, "1", "torch is not installed")
    r.assert_outcomes(passed=1, skipped=1, errors=2)  # failed in setup: pytest counts them as errors
    assert r.ret != 0
    r.stdout.fnmatch_lines(["*GPU test did not run although CUDAIPC4J_REQUIRE_GPU=1: torch is not installed*"])


def test_required_gpu_tests_that_skip_themselves_fail_even_with_a_gpu(pytester, monkeypatch):
    r = _run(pytester, monkeypatch, "1", None)
    r.assert_outcomes(passed=2, skipped=1, failed=1)
    r.stdout.fnmatch_lines(["*CUDAIPC4J_REQUIRE_GPU=1: cupy is not installed*"])


def test_with_a_gpu_gpu_tests_run(pytester, monkeypatch):
    r = _run(pytester, monkeypatch, "0", None)
    r.assert_outcomes(passed=2, skipped=2)


def test_a_bad_value_stops_the_run(pytester, monkeypatch):
    r = _run(pytester, monkeypatch, "true", None)
    assert r.ret != 0
    assert "must be 1" in r.stdout.str() + r.stderr.str()
