#!/usr/bin/env python3
"""Runs the Python package's tests (python/tests) under the standard library's unittest and under pytest, with this
interpreter, and checks that both report the same tests and subtests, by id, with the same outcomes (passed,
failed, skipped; python/tests/outcomes.py reads them). Prints one line when they agree, the differences when not;
exits 1 then, or when either run failed. Where this interpreter cannot import pytest it says so in one line and
exits 0: there is nothing to compare with."""
import importlib.util
import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1] / "python"
NAME = "compare-python-runners"


def main() -> int:
    if not (PYTHON_DIR / "tests").is_dir():
        print(f"{NAME}: skipped: no python/tests")
        return 0
    if importlib.util.find_spec("pytest") is None:
        print(f"{NAME}: skipped: {sys.executable} cannot import pytest, so only unittest can run the tests")
        return 0
    sys.path.insert(0, str(PYTHON_DIR))
    import pytest

    from tests import outcomes
    runs = {runner: outcomes.run(runner, PYTHON_DIR / "tests", PYTHON_DIR, cwd=PYTHON_DIR)
            for runner in outcomes.RUNNERS}
    unit, py = runs["unittest"], runs["pytest"]
    ok = True
    for run in runs.values():
        if run.returncode != 0:
            ok = False
            print(f"{NAME}: the tests failed under {run.runner} (exit {run.returncode}):\n{run.output[-3000:]}",
                  file=sys.stderr)
        if run.repeated:
            ok = False
            print(f"{NAME}: {run.runner} reports subtests under one id more than once (give each its own"
                  f" parameters):\n  " + "\n  ".join(run.repeated), file=sys.stderr)
    kinds = {"tests": (unit.tests, py.tests)}
    if py.subtests or not unit.subtests:
        kinds["subtests"] = (unit.subtests, py.subtests)
    else:
        print(f"{NAME}: pytest {pytest.__version__} reports no subtests: compared by test only")
    for kind, (a, b) in kinds.items():
        differences = [f"  {i}: unittest {_show(a.get(i))}, pytest {_show(b.get(i))}"
                       for i in sorted(set(a) | set(b)) if _show(a.get(i)) != _show(b.get(i))]
        if differences:
            ok = False
            print(f"{NAME}: unittest and pytest {pytest.__version__} differ on {len(differences)} {kind}:\n"
                  + "\n".join(differences[:40]), file=sys.stderr)
    if ok:
        counts = ", ".join(f"{n} {o}" for o in ("passed", "skipped", "failed")
                           if (n := sum(t.outcome == o for t in unit.tests.values())))
        print(f"{NAME}: unittest and pytest {pytest.__version__} agree: {len(unit.tests)} tests ({counts}),"
              f" {len(unit.subtests)} subtests")
    return 0 if ok else 1


def _show(outcome) -> str:
    return "absent" if outcome is None else outcome.outcome


if __name__ == "__main__":
    sys.exit(main())
