#!/usr/bin/env bash
# The project's test command, for any user: the Maven build with every module's tests (arguments go to Maven,
# e.g. -o), then a user's project built on the interop library just built (scripts/consumer.sh), the interop
# benchmark's GPU-free part on the jar just built (scripts/stub-reader-bench.sh at its smallest, on the stub driver),
# then the Python package's tests where there are some (scripts/python-tests.sh, which needs Python and installs
# nothing). Lists the skipped tests with their reasons.
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

# Every reader case of the stub driver's bench once (tensor, state dict and the service's scale reader on legacy and
# expandable shares, a pool buffer's import): it ends at a reader's failure. No figure is judged here.
# It needs a C compiler (for the stub driver) and bash 5, as the stub-driver tests of the Maven build need cc.
if ! command -v "${CC:-cc}" >/dev/null 2>&1; then
  echo "stub driver's reader bench: skipped: no C compiler (${CC:-cc}) to build the stub driver"
elif ((BASH_VERSINFO[0] < 5)); then
  echo "stub driver's reader bench: skipped: it needs bash 5, this is bash $BASH_VERSION"
else
bench=$(mktemp -d)
trap 'rm -f "$started"; rm -rf "$bench"' EXIT
if ! REPEATS=1 TENSORS=4 REOPENS=2 ALLOCS=c,e,pool scripts/stub-reader-bench.sh "$bench/out" > "$bench/log" 2>&1; then
  cat "$bench/log" >&2
  echo "test: scripts/stub-reader-bench.sh failed (above)" >&2
  exit 1
fi
readers=$(grep -c '^{' "$bench/out/stub-reader-bench.jsonl" || true)
if [ "$readers" != 7 ]; then
  cat "$bench/log" >&2
  echo "test: scripts/stub-reader-bench.sh gave $readers readers' lines, not 7" >&2
  exit 1
fi
echo "stub driver's reader bench: $readers readers passed"
fi

scripts/python-tests.sh
