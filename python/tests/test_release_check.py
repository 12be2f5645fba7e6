"""support.TestCase's check that fails the test whose finalizer release failed, under both runners: the failure
lands on the test that dropped the tensor, not on the next one that opens."""
from . import outcomes, support

SUITE = """
import gc
from unittest import mock

from cudaipc4j import opening
from tests import fake_driver, support
from tests.golden_cases import CASES


class FakeTensor:
    def __init__(self, mapping, *rest):
        self.mapping = mapping


class Suite(support.TestCase):
    def _stand_in(self, fail=None):
        fake_driver.install(self, fail=fail)
        self.enterContext(mock.patch.object(opening, "_contexts", {}))
        self.enterContext(mock.patch.object(opening, "_torch_tensor", FakeTensor))
        self.enterContext(mock.patch.object(opening.devices, "ordinal_of", lambda uuid: 0))

    def test_drops_a_tensor_whose_release_fails(self):
        self._stand_in(fail="cuIpcCloseMemHandle")
        t = opening.open(CASES["legacy"])
        del t

    def test_the_next_test_opens_cleanly(self):
        self._stand_in()
        t = opening.open(CASES["legacy"])
        del t
"""


class ReleaseCheckTest(support.TestCase):
    def test_a_failed_release_fails_its_own_test(self):
        for runner in outcomes.RUNNERS:
            with self.subTest(runner=runner):
                self.skip_unless_available(runner)
                r = self.suite_outcomes(runner, SUITE)
                assert {t: o.outcome for t, o in r.tests.items()} == {
                    "test_suite.Suite.test_drops_a_tensor_whose_release_fails": "failed",
                    "test_suite.Suite.test_the_next_test_opens_cleanly": "passed"}, r.output
                message = r.tests["test_suite.Suite.test_drops_a_tensor_whose_release_fails"].message
                assert "a release in a finalizer failed during this test: CudaError: cuIpcCloseMemHandle failed" \
                    in message, message
