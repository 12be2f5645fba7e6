#!/usr/bin/env bash
# The project's test command, for any user: the Maven build with every module's tests (arguments go to Maven,
# e.g. -o), then the Python package's tests where there are some. Lists the skipped tests with their reasons.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Reports older than this run (a module Maven did not reach) are not listed as skipped by it.
started=$(mktemp)
trap 'rm -f "$started"' EXIT
rc=0
scripts/mvn.sh -B verify "$@" || rc=$?
scripts/skipped-tests.sh "$root" "$started" || true
[ "$rc" -eq 0 ] || exit "$rc"

if [ -d python/tests ]; then
  py=python3
  if ! "$py" -c 'import pytest' 2>/dev/null && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    # Debian's package serves the system's interpreter, which may not be the first python3 on root's PATH.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-pytest >/dev/null
    py=/usr/bin/python3
  fi
  if ! "$py" -c 'import pytest' 2>/dev/null; then
    echo "test.sh: $py cannot import pytest: install it (Debian: apt-get install python3-pytest)" >&2
    exit 1
  fi
  expected=$(find python/tests -name 'test_*.py' -o -name '*_test.py' | head -1)
  prc=0
  "$py" -m pytest -q -rs python/tests || prc=$?
  # Exit 5 is pytest's "no tests collected": a failure only where test files are there to be collected.
  if [ "$prc" -ne 0 ] && ! { [ "$prc" -eq 5 ] && [ -z "$expected" ]; }; then
    exit "$prc"
  fi
fi
