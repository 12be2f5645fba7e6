#!/usr/bin/env bash
# The project's test command, for any user: the Maven build with every module's tests (arguments go to Maven,
# e.g. -o), then a user's project built on the interop library just built (scripts/consumer.sh), then the Python
# package's tests where there are some (scripts/python-tests.sh, which needs Python and installs nothing). Lists the
# skipped tests with their reasons.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# What the Python tests need is checked now, not after Maven's minutes.
scripts/python-tests.sh --check

# Reports older than this run (a module Maven did not reach) are not listed as skipped by it.
started=$(mktemp)
trap 'rm -f "$started"' EXIT
rc=0
scripts/mvn.sh -B verify "$@" || rc=$?
scripts/skipped-tests.sh "$root" "$started" || true
[ "$rc" -eq 0 ] || exit "$rc"

scripts/consumer.sh "$@"

scripts/python-tests.sh
