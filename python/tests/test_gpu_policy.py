"""The rule for tests marked gpu, checked without a GPU: skipped with a reason, or failed under
CUDAIPC4J_REQUIRE_GPU=1 (the GPU machine), whatever made them skip."""
import os
import re
import subprocess
import sys
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


class Run:
    """The outcome of a pytest run in a child process (a fresh interpreter: the rule reads its own environment)."""

    def __init__(self, result):
        self.ret = result.returncode
        self.out = result.stdout + result.stderr
        last = [line for line in self.out.splitlines() if " in " in line and line.strip().endswith("s")]
        self.counts = dict((word.rstrip("s").replace("error", "errors"), int(n)) for n, word in
                           re.findall(r"(\d+) (passed|skipped|failed|errors?)", last[-1] if last else ""))

    def assert_outcomes(self, **expected):
        got = {k: v for k, v in self.counts.items() if v}
        assert got == {k.rstrip("s").replace("error", "errors"): v for k, v in expected.items() if v}, self.out


def _run(tmp_path, require, unavailable):
    here = Path(__file__).parent
    for helper in ("gpu_policy.py", "driver_files.py"):
        (tmp_path / helper).write_text((here / helper).read_text(encoding="utf-8"), encoding="utf-8")
    # the conftest under test, told whether a GPU is there without importing torch
    (tmp_path / "conftest.py").write_text(
        CONFTEST.replace("import gpu_policy  # noqa: E402", "import gpu_policy  # noqa: E402\n"
                         f"gpu_policy.unavailable_reason = lambda: {unavailable!r}"), encoding="utf-8")
    (tmp_path / "test_suite.py").write_text(SUITE, encoding="utf-8")
    env = {**os.environ, "CUDAIPC4J_REQUIRE_GPU": require}
    return Run(subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider", "-o",
                               "addopts=", "--rootdir", str(tmp_path), str(tmp_path)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300))


def test_without_a_gpu_gpu_tests_are_skipped_with_the_reason(tmp_path):
    r = _run(tmp_path, "0", "torch is not installed")
    r.assert_outcomes(passed=1, skipped=3)
    assert re.search(r"SKIPPED \[2\] .*torch is not installed", r.out), r.out


def test_required_gpu_tests_that_cannot_run_fail(tmp_path):
    r = _run(tmp_path, "1", "torch is not installed")
    r.assert_outcomes(passed=1, skipped=1, errors=2)  # failed in setup: pytest counts them as errors
    assert r.ret != 0
    assert "GPU test did not run although CUDAIPC4J_REQUIRE_GPU=1: torch is not installed" in r.out


def test_required_gpu_tests_that_skip_themselves_fail_even_with_a_gpu(tmp_path):
    r = _run(tmp_path, "1", None)
    r.assert_outcomes(passed=2, skipped=1, failed=1)
    assert r.ret != 0
    assert "CUDAIPC4J_REQUIRE_GPU=1: cupy is not installed" in r.out


def test_with_a_gpu_gpu_tests_run(tmp_path):
    r = _run(tmp_path, "0", None)
    r.assert_outcomes(passed=2, skipped=2)
    assert r.ret == 0


def test_a_bad_value_stops_the_run(tmp_path):
    r = _run(tmp_path, "true", None)
    assert r.ret != 0
    assert "must be 1" in r.out
