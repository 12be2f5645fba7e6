#!/usr/bin/env bash
# Runs the tool's `bench` command on a GPU machine that has no Maven, with the JVM set up as ./cudaipc4j sets it
# up: the jlinked runtime in .jre (else $JAVA_HOME), the serial GC, a JDK 25 AOT cache trained once per jar by a
# default run, and CUDA_DEVICE_MAX_CONNECTIONS=1 unless set. The figures of docs/performance.md name the command
# that took each; those against NVIDIA's sample come from scripts/compare-sample.sh.
# Usage: scripts/bench-gpu.sh [--jar JAR] [--mps] [-Dname=value ...] BENCH-ARGS...
#   e.g. scripts/bench-gpu.sh --only e2e --repeat 10 --out bench-results     (bench.json in that folder)
#        scripts/bench-gpu.sh -Dcudaipc4j.noEarlyStart=true --only e2e      (one start-up measure off)
#        scripts/bench-gpu.sh --mps --only steps --procs 1,2,8             (under a private MPS server, and without)
# --mps starts an MPS control daemon of this user with private pipe and log folders for the bench's processes
# and quits it afterwards (nvidia-cuda-mps-control must be installed). `./cudaipc4j bench --help` lists the
# bench's own options.
set -euo pipefail
cd "$(dirname "$0")/.."
# As ./cudaipc4j does: one hardware work queue per context unless the caller chose otherwise.
export CUDA_DEVICE_MAX_CONNECTIONS="${CUDA_DEVICE_MAX_CONNECTIONS:-1}"
java=.jre/bin/java
[ -x "$java" ] || java=$JAVA_HOME/bin/java
jar=cudaipc4j-cli/target/cudaipc4j.jar
if [ "${1:-}" = --jar ]; then jar=$2; shift 2; fi
mps=0
if [ "${1:-}" = --mps ]; then mps=1; shift; fi
props=()
while [ $# -gt 0 ] && [[ $1 == -D* ]]; do props+=("$1"); shift; done
opts=(--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC)
aot="${jar%.jar}.aot"
if [ "${CUDAIPC4J_AOT:-1}" != 0 ]; then
  if [ ! -f "$aot" ] || [ "$jar" -nt "$aot" ]; then
    report=$(mktemp)
    # The training run writes a report too, so the JSON classes are in the cache as well.
    CUDAIPC4J_REPORT=$report "$java" "${opts[@]}" -XX:AOTCacheOutput="$aot" -Dcudaipc4j.aotTraining=true \
      -jar "$jar" --size 1M >/dev/null 2>&1 \
      || { rm -f "$aot"; echo "bench-gpu: AOT training failed; running without the cache" >&2; }
    rm -f "$report"
  fi
  [ -f "$aot" ] && opts+=(-XX:AOTCache="$aot" -Xlog:aot=off -Xlog:cds=off)
fi
if [ "$mps" = 0 ]; then
  exec "$java" "${opts[@]}" "${props[@]}" -jar "$jar" bench "$@"
fi
CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d) CUDA_MPS_LOG_DIRECTORY=$(mktemp -d)
export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
quit_mps() {
  echo quit | nvidia-cuda-mps-control || true
  # The daemon leaves once its clients are gone: wait for its pipe to go, not a fixed time.
  for _ in $(seq 50); do [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ] || break; sleep 0.1; done
  rm -rf "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
}
trap quit_mps EXIT
"$java" "${opts[@]}" "${props[@]}" -jar "$jar" bench "$@"
