#!/usr/bin/env bash
# The Python package's tests (python/tests), for any user, installing nothing: under pytest where the interpreter
# can import it, else under the standard library's unittest (python3 -m unittest discover); either way it lists the
# skipped tests with their reasons. PYTHON names the interpreter (default python3). With --check it only checks, in
# one line each, what the tests need, so that scripts/test.sh can learn it before Maven's minutes.
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
exit "$rc"
