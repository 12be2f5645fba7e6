"""What support.py gives every test: the same tests seen by both runners, GPU tests chosen the same way under both,
and stand-in modules put back."""
import importlib
import inspect
import sys
import types
import unittest
from pathlib import Path

from . import outcomes, support

TESTS = Path(__file__).resolve().parent

MARKED = """
from tests import gpu_policy, support

gpu_policy.unavailable_reason = lambda: None


class Plain(support.TestCase):
    def test_plain(self):
        pass

    @support.gpu
    def test_gpu_method(self):
        pass


@support.gpu
class Gpu(support.TestCase):
    def test_in_a_gpu_class(self):
        pass
"""


class SupportTest(support.TestCase):
    def test_every_test_is_a_support_test_case_that_both_runners_collect(self):
        # a module-level test function or a Test* class of no TestCase would run under pytest alone
        for path in sorted(TESTS.glob("test*.py")):
            with self.subTest(module=path.stem):
                module = importlib.import_module(f"tests.{path.stem}")
                for name, value in vars(module).items():
                    if inspect.isfunction(value) and name.startswith("test"):
                        self.fail(f"{name} is a test function: unittest does not collect it")
                    if inspect.isclass(value) and value.__module__ == module.__name__ and (
                            name.startswith("Test") or issubclass(value, unittest.TestCase)
                            or any(n.startswith("test") for n in vars(value))):
                        assert issubclass(value, support.TestCase), f"{name} is no support.TestCase"

    def _marked(self):
        """A package of tests as tests/ is one: its load_tests chooses by CUDAIPC4J_TEST_MARK."""
        folder = self.temporary_directory()
        (folder / "marked").mkdir()
        (folder / "marked" / "__init__.py").write_text(
            "from tests import support\n\nload_tests = support.load_tests_of(__file__)\n", encoding="utf-8")
        (folder / "marked" / "test_marked.py").write_text(MARKED, encoding="utf-8")
        return folder

    def test_gpu_tests_are_chosen_the_same_way_under_both_runners(self):
        folder = self._marked()
        gpu = {"marked.test_marked.Plain.test_gpu_method", "marked.test_marked.Gpu.test_in_a_gpu_class"}
        plain = {"marked.test_marked.Plain.test_plain"}
        for mark, expected in (("gpu", gpu), ("not gpu", plain)):
            for runner in outcomes.RUNNERS:
                with self.subTest(mark=mark, runner=runner):
                    self.skip_unless_available(runner)
                    if runner == "unittest":
                        r = outcomes.run(runner, folder, env={support.MARK_VARIABLE: mark})
                    else:
                        r = outcomes.run(runner, folder, args=["-m", mark])
                    assert set(r.tests) == expected, r.output
                    assert r.returncode == 0, r.output

    def test_a_bad_mark_stops_unittests_run(self):
        r = outcomes.run("unittest", self._marked(), env={support.MARK_VARIABLE: "gpus"})
        assert r.returncode != 0
        assert "CUDAIPC4J_TEST_MARK must be gpu or 'not gpu'" in r.output, r.output
        assert not [t for t in r.tests if t.startswith("marked.")], "no test ran"

    def test_stand_in_modules_are_put_back_and_nothing_else(self):
        name, absent = "cudaipc4j_test_stand_in", "cudaipc4j_test_absent"
        original = types.ModuleType(name)
        sys.modules[name] = original
        self.addCleanup(sys.modules.pop, name, None)
        result = unittest.TestResult()
        Inner("stand_ins").run(result)
        assert result.wasSuccessful(), result.errors + result.failures
        assert sys.modules[name] is original, "the stand-in's module back"
        assert absent not in sys.modules, "a module put in where there was none: removed"
        assert sys.modules.pop("cudaipc4j_test_imported_meanwhile") is Inner.imported, "what the test added stays"

    def test_the_ids_of_subtests_are_unittests(self):
        seen = []

        class Recorder(unittest.TestResult):
            def addSubTest(self, test, subtest, err):
                seen.append(subtest.id())

        Inner("subtests").run(Recorder())
        test = f"{Inner.__module__}.{Inner.__qualname__}.subtests"
        assert seen == [f"{test} {outcomes.describe('message', {})}",
                        f"{test} {outcomes.describe(None, {'case': 'a', 'n': 1})}",
                        f"{test} {outcomes.describe('m', {'case': 'b'})}"]
        assert seen[1].endswith(" (case='a', n=1)")


class Inner(support.TestCase):
    """Run by the tests above alone: no runner collects a method whose name does not start with test."""
    imported = types.ModuleType("cudaipc4j_test_imported_meanwhile")

    def stand_ins(self):
        self.patch_modules({"cudaipc4j_test_stand_in": types.ModuleType("stand-in"),
                            "cudaipc4j_test_absent": None})
        assert sys.modules["cudaipc4j_test_stand_in"].__name__ == "stand-in"
        sys.modules["cudaipc4j_test_imported_meanwhile"] = Inner.imported

    def subtests(self):
        with self.subTest("message"):
            pass
        with self.subTest(case="a", n=1):
            pass
        with self.subTest("m", case="b"):
            pass

