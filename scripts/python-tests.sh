#!/usr/bin/env bash
# The Python package's tests (python/tests), for any user, installing nothing outside a temporary folder: under
# pytest where the interpreter can import it, else under the standard library's unittest (python3 -m unittest
# discover); either way it lists the skipped tests with their reasons. Then the package's wheel, installed into a
# throwaway virtual environment, reads the golden descriptors (a one-line skip where pip, venv or setuptools' wheel
# building is missing). PYTHON names the interpreter (default python3). With --check it only checks, in one line
# each, what the tests need, so that scripts/test.sh can learn it before Maven's minutes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=${PYTHON:-python3}
me=python-tests.sh

[ -d "$root/python/tests" ] || exit 0

if ! command -v "$py" >/dev/null; then
  echo "$me: $py not found: the Python package's tests need Python 3.11 or newer (Debian: apt-get install python3)" >&2
  exit 1
fi
if ! version=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3]); sys.exit(sys.version_info < (3, 11))'); then
  echo "$me: $py is Python $version: the Python package's tests need 3.11 or newer (set PYTHON to one)" >&2
  exit 1
fi
[ "${1:-}" = --check ] && exit 0

cd "$root/python"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
if "$py" -c 'import pytest' 2>/dev/null; then
  echo "$me: Python $version ($py), pytest $("$py" -c 'import pytest; print(pytest.__version__)')"
  "$py" -m pytest -q -rs tests || rc=$?
else
  echo "$me: Python $version ($py), unittest (it cannot import pytest)"
  # verbose into a file: its skipped lines, with their reasons, are listed after the run; all of it when it fails
  "$py" -m unittest discover -v >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$log"
  else
    grep -E '\.\.\. skipped ' "$log" || true
    tail -n 3 "$log"
  fi
  # before 3.12, unittest passes when it finds no tests; pytest's code for that is 5
  if [ "$rc" -eq 0 ] && grep -q '^Ran 0 tests' "$log"; then rc=5; fi
fi
# 5 is "no tests collected": a failure only where there are test files to be collected
if [ "$rc" -eq 5 ] && [ -z "$(find tests -name 'test_*.py' | head -1)" ]; then rc=0; fi
[ "$rc" -eq 0 ] || exit "$rc"

# The package as users get it: a wheel built from a copy of python/ (so that nothing is left in it) with what this
# interpreter has, installed without extras into a fresh virtual environment in a temporary folder, where it reads
# every golden descriptor. No index, no cache, no configuration files: nothing is fetched or written elsewhere.
wheel_check() {
  local why="" start=$SECONDS
  if ! "$py" -m pip --version >/dev/null 2>&1; then
    why="$py has no pip"
  elif ! "$py" -m pip --help 2>/dev/null | grep -q -- '--python <python>'; then
    why="$py has a pip older than 22.3 (no --python, to install into another environment)"
  elif ! "$py" -c 'import venv' 2>/dev/null; then
    why="$py has no venv module"
  elif ! "$py" -c '
import setuptools, sys
try:
    import setuptools.command.bdist_wheel  # setuptools 70.1 and later
except ImportError:
    import wheel.bdist_wheel  # the wheel package, before
sys.exit(int(setuptools.__version__.split(".")[0]) < 61)' 2>/dev/null; then
    why="$py cannot build wheels: it needs setuptools 61 or newer that can build wheels (70.1+, or the wheel package)"
  fi
  if [ -n "$why" ]; then
    echo "$me: wheel check skipped: $why"
    return 0
  fi
  tmp=$(mktemp -d)  # global: the trap runs after the function returns
  trap 'rm -rf "$tmp"; rm -f "$log"' EXIT
  mkdir "$tmp/src"
  tar -C "$root/python" --exclude=__pycache__ --exclude=./build --exclude=./dist --exclude='*.egg-info' -cf - . |
    tar -C "$tmp/src" -xf -
  local pip=(env -u PYTHONPATH PIP_CONFIG_FILE=/dev/null "$py" -m pip --disable-pip-version-check --no-input -q)
  "${pip[@]}" wheel --no-build-isolation --no-deps --no-index --no-cache-dir -w "$tmp/dist" "$tmp/src" >"$log" 2>&1 ||
    { cat "$log"; echo "$me: the wheel did not build" >&2; return 1; }
  local wheel
  wheel=$(ls "$tmp"/dist/*.whl)
  "$py" -m venv --without-pip "$tmp/venv" >"$log" 2>&1 ||
    { cat "$log"; echo "$me: $py could not make a virtual environment for the wheel" >&2; return 1; }
  "${pip[@]}" --python "$tmp/venv/bin/python3" install --no-deps --no-index --no-cache-dir "$wheel" >"$log" 2>&1 ||
    { cat "$log"; echo "$me: the wheel did not install" >&2; return 1; }
  # -I: neither PYTHONPATH nor the current folder, so the installed package or nothing
  "$tmp/venv/bin/python3" -I - "$root/interop-golden" "$tmp/venv" "${wheel##*/}" "$((SECONDS - start))" <<'PY'
import pathlib, sys
import cudaipc4j

golden, venv, wheel, seconds = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
where = pathlib.Path(cudaipc4j.__file__).resolve()
if not where.is_relative_to(venv.resolve()):
    sys.exit(f"python-tests.sh: the wheel check imported cudaipc4j from {where}, not from its environment")
files = sorted(golden.glob("java/*.json")) + sorted(golden.glob("python/*.json"))
if not files:
    sys.exit(f"python-tests.sh: no golden descriptors in {golden}")
for f in files:
    text = f.read_text(encoding="utf-8")
    if cudaipc4j.to_json(cudaipc4j.from_json(text)) + "\n" != text:
        sys.exit(f"python-tests.sh: the installed wheel does not read and write back {f} as it is")
print(f"python-tests.sh: {wheel}, installed without extras in a fresh environment ({where.parent}), read and wrote"
      f" back {len(files)} golden descriptors ({seconds} s to build and install)")
PY
}
wheel_check
