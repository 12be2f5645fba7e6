"""The package's tests, for the standard library's runner and for pytest alike, from python/:
``python3 -m unittest discover`` or ``python3 -m pytest``. Every test derives from support.TestCase, whose rules hold
under both runners. GPU tests are chosen by ``-m gpu`` (or ``-m "not gpu"``) under pytest, and by CUDAIPC4J_TEST_MARK
set to the same words under unittest."""
from . import gpu_policy, support

gpu_policy.required()  # a bad value stops the run at once, under either runner

if not __debug__:
    raise RuntimeError("the tests check with assert statements: run them without -O")

load_tests = support.load_tests_of(__file__)
