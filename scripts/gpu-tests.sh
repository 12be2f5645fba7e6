#!/usr/bin/env bash
# Runs the GPU-tagged JUnit tests of every module without Maven (a GPU machine may have only a Java runtime),
# through the JUnit console launcher, with the toolchain-tagged ones (nvcc, cuda.h, nccl.h: the GPU machine has
# them). Build first: scripts/mvn.sh -q -B package -DskipTests (the jars, the test classes, and every dependency jar
# in cudaipc4j-cli/target/lib).
# A GPU is required here: a GPU or toolchain test that would be skipped fails instead (CUDAIPC4J_REQUIRE_GPU=1).
# Usage: scripts/gpu-tests.sh [JAVA] [LAUNCHER-ARGS...]   (JAVA defaults to .jre/bin/java, else $JAVA_HOME/bin/java)
# The results come as a tree at the end; under a time limit pass --details=flat, which prints each test as it ends,
# so a run cut short keeps what finished. Select classes with --include-classname 'REGEX'.
set -euo pipefail
# Help, and a first argument that is an option (where a path goes) refused, before anything runs.
case "${1:-}" in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "gpu-tests: usage: scripts/gpu-tests.sh [JAVA [LAUNCHER OPTIONS...]] (see scripts/gpu-tests.sh --help); got $1" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/.."
java=${1:-}
[ $# -gt 0 ] && shift
[ -n "$java" ] || { [ -x .jre/bin/java ] && java=.jre/bin/java || java=$JAVA_HOME/bin/java; }
modules=(cudaipc4j-testing cudaipc4j-base cudaipc4j-cuda cudaipc4j-coord cudaipc4j-launch cudaipc4j-interop cudaipc4j-nccl cudaipc4j-tool cudaipc4j-simpleipc cudaipc4j-bench cudaipc4j-cli cudaipc4j-examples)
cp="" tests=""
for m in "${modules[@]}"; do
  [ -d "$m/target/test-classes" ] && { cp+="$m/target/test-classes:"; tests+="$m/target/test-classes:"; }
  cp+="$m/target/classes:"
done
cp+=$(ls cudaipc4j-cli/target/lib/*.jar | tr '\n' :)
export CUDAIPC4J_REQUIRE_GPU=1
exec "$java" --enable-native-access=ALL-UNNAMED \
  -jar cudaipc4j-cli/target/lib/junit-platform-console-standalone-1.14.4.jar execute \
  --disable-banner --disable-ansi-colors --details=tree \
  --class-path "$cp" --scan-class-path "${tests%:}" --include-tag gpu --include-tag toolchain "$@"
