"""The rule for GPU tests, checked without a GPU under both runners: skipped with a reason, or failed under
CUDAIPC4J_REQUIRE_GPU=1 (the GPU machine), whatever made them skip."""
from . import gpu_policy, outcomes, support

SUITE = """
from tests import gpu_policy, support

gpu_policy.unavailable_reason = lambda: {unavailable!r}  # told whether a GPU is there, without importing torch


class Suite(support.TestCase):
    @support.gpu
    def test_needs_gpu(self):
        pass

    @support.gpu
    def test_skips_itself(self):
        self.skipTest("cupy is not installed")

    def test_plain(self):
        pass

    def test_plain_skip(self):
        self.skipTest("not a gpu test")
"""

NEEDS_GPU, SKIPS_ITSELF, PLAIN, PLAIN_SKIP = (f"test_suite.Suite.{n}" for n in (
    "test_needs_gpu", "test_skips_itself", "test_plain", "test_plain_skip"))


class GpuPolicyTest(support.TestCase):
    def test_required_reads_the_variable(self):
        assert gpu_policy.required({}) is False
        assert gpu_policy.required({"CUDAIPC4J_REQUIRE_GPU": "0"}) is False
        assert gpu_policy.required({"CUDAIPC4J_REQUIRE_GPU": "1"}) is True
        with self.assertRaisesRegex(ValueError, "must be 1"):
            gpu_policy.required({"CUDAIPC4J_REQUIRE_GPU": "yes"})

    def test_skip_outcome(self):
        assert gpu_policy.skip_outcome("no torch", False) == ("skipped", "no torch")
        status, message = gpu_policy.skip_outcome("no torch", True)
        assert status == "failed" and "CUDAIPC4J_REQUIRE_GPU=1" in message and "no torch" in message

    def _run(self, runner, require, unavailable):
        return self.suite_outcomes(runner, SUITE.format(unavailable=unavailable),
                                   env={"CUDAIPC4J_REQUIRE_GPU": require})

    def test_without_a_gpu_gpu_tests_are_skipped_with_the_reason(self):
        for runner in outcomes.RUNNERS:
            with self.subTest(runner=runner):
                self.skip_unless_available(runner)
                r = self._run(runner, "0", "torch is not installed")
                assert r.tests == {NEEDS_GPU: outcomes.Outcome("skipped", "torch is not installed"),
                                   SKIPS_ITSELF: outcomes.Outcome("skipped", "torch is not installed"),
                                   PLAIN: outcomes.Outcome("passed"),
                                   PLAIN_SKIP: outcomes.Outcome("skipped", "not a gpu test")}, r.output
                assert r.returncode == 0, r.output

    def test_required_gpu_tests_that_cannot_run_fail(self):
        for runner in outcomes.RUNNERS:
            with self.subTest(runner=runner):
                self.skip_unless_available(runner)
                r = self._run(runner, "1", "torch is not installed")
                assert {t: o.outcome for t, o in r.tests.items()} == {
                    NEEDS_GPU: "failed", SKIPS_ITSELF: "failed", PLAIN: "passed", PLAIN_SKIP: "skipped"}, r.output
                for test in (NEEDS_GPU, SKIPS_ITSELF):
                    assert "GPU test did not run although CUDAIPC4J_REQUIRE_GPU=1: torch is not installed" \
                        in r.tests[test].message, r.output
                assert r.returncode != 0

    def test_required_gpu_tests_that_skip_themselves_fail_even_with_a_gpu(self):
        for runner in outcomes.RUNNERS:
            with self.subTest(runner=runner):
                self.skip_unless_available(runner)
                r = self._run(runner, "1", None)
                assert {t: o.outcome for t, o in r.tests.items()} == {
                    NEEDS_GPU: "passed", SKIPS_ITSELF: "failed", PLAIN: "passed", PLAIN_SKIP: "skipped"}, r.output
                assert "CUDAIPC4J_REQUIRE_GPU=1: cupy is not installed" in r.tests[SKIPS_ITSELF].message
                assert r.returncode != 0

    def test_with_a_gpu_gpu_tests_run(self):
        for runner in outcomes.RUNNERS:
            with self.subTest(runner=runner):
                self.skip_unless_available(runner)
                r = self._run(runner, "0", None)
                assert r.tests == {NEEDS_GPU: outcomes.Outcome("passed"),
                                   SKIPS_ITSELF: outcomes.Outcome("skipped", "cupy is not installed"),
                                   PLAIN: outcomes.Outcome("passed"),
                                   PLAIN_SKIP: outcomes.Outcome("skipped", "not a gpu test")}, r.output
                assert r.returncode == 0

    def test_a_bad_value_stops_the_run(self):
        for runner in outcomes.RUNNERS:
            with self.subTest(runner=runner):
                self.skip_unless_available(runner)
                r = self._run(runner, "true", None)
                assert r.returncode != 0
                assert "must be 1" in r.output
                assert not [t for t in r.tests if t.startswith("test_suite.Suite.")], "no test of the suite ran"
