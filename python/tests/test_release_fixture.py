"""The conftest fixture that fails the test whose finalizer release failed, checked with pytest's own pytester:
the failure lands on the test that dropped the tensor, not on the next one that opens."""
import textwrap
from pathlib import Path

pytest_plugins = ["pytester"]

_TESTS = Path(__file__).resolve().parent


def test_a_failed_release_fails_its_own_test(pytester):
    pytester.syspathinsert(str(_TESTS))
    pytester.makeconftest((_TESTS / "conftest.py").read_text())
    pytester.makepyfile(test_inner=textwrap.dedent("""
        import gc
        import fake_driver
        from cudaipc4j import opening
        from golden_cases import CASES


        class FakeTensor:
            def __init__(self, mapping, *rest):
                self.mapping = mapping


        def _stand_in(monkeypatch, fail=None):
            fake_driver.install(monkeypatch, fail=fail)
            monkeypatch.setattr(opening, "_contexts", {})
            monkeypatch.setattr(opening, "_torch_tensor", FakeTensor)
            monkeypatch.setattr(opening.devices, "ordinal_of", lambda uuid: 0)


        def test_drops_a_tensor_whose_release_fails(monkeypatch):
            _stand_in(monkeypatch, fail="cuIpcCloseMemHandle")
            t = opening.open(CASES["legacy"])
            del t


        def test_the_next_test_opens_cleanly(monkeypatch):
            _stand_in(monkeypatch)
            t = opening.open(CASES["legacy"])
            del t
    """))
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_drops_a_tensor_whose_release_fails*",
                                 "*a release in a finalizer failed during this test: *cuIpcCloseMemHandle*"])
