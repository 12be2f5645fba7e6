#!/usr/bin/env bash
# End-to-end acceptance of simpleIPC on a GPU machine: each run is checked for its exit code, its output, and
# that it leaves no /dev/shm segment and no process behind. Prints one PASS/FAIL line per case and a total.
# Usage: scripts/gpu-acceptance.sh [JAVA]   (JAVA defaults to .jre/bin/java, else $JAVA_HOME/bin/java)
set -uo pipefail
# Help, and a first argument that is an option (where a path goes) refused, before anything runs.
case "${1:-}" in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "gpu-acceptance: usage: scripts/gpu-acceptance.sh [JAVA] (see scripts/gpu-acceptance.sh --help); got $1" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/.."
java=${1:-}
[ -n "$java" ] || { [ -x .jre/bin/java ] && java=.jre/bin/java || java=$JAVA_HOME/bin/java; }
tool=("$java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -jar cudaipc4j-cli/target/cudaipc4j.jar)
pass=0; fail=0
# The CUDA driver's files in /dev/shm (cuda.shm.<n>.<pid in hex>.<m>) of processes that have ended and that were
# not there when this script began (those are not the tool's doing).
driver_files_before=" $(ls /dev/shm 2>/dev/null | grep '^cuda\.shm\.' | tr '\n' ' ')"
dead_driver_files() {
  local f h
  for f in $(ls /dev/shm 2>/dev/null | grep '^cuda\.shm\.'); do
    [[ $driver_files_before == *" $f "* ]] && continue
    h=${f#cuda.shm.*.}; h=${h%%.*}
    [[ $h =~ ^[0-9a-fA-F]+$ ]] || continue
    [ -d /proc/$((16#$h)) ] || echo "$f"
  done
}
# Names the dead processes' driver files and removes them, so that the next case starts clean.
driver_leftovers() {
  local left; left=$(dead_driver_files)
  [ -z "$left" ] && return
  echo " driver-files-left:$(echo $left | tr ' ' ',')"
  for f in $left; do rm -f "/dev/shm/$f"; done
}

# Any simpleIPC child (its one argument its index; the run's name is on no command line): the checks run one at a
# time, so one still running after its run is that run's.
CHILD='SimpleIpcChild [0-9]+$'

check() {  # name expected-exit args...
  local name=$1 want=$2; shift 2
  local log; log=$(mktemp)
  local t0 t1 rc
  t0=$(date +%s%N)
  "${tool[@]}" "$@" >"$log" 2>&1; rc=$?
  t1=$(date +%s%N)
  local seg; seg=$(sed -n 's/^PP: lshmName = //p' "$log" | head -1)
  local problems=""
  [ "$rc" = "$want" ] || problems+=" exit=$rc(want $want)"
  if [ "$want" = 0 ]; then
    local n; n=$(grep -c '^Process [0-9]* complete!$' "$log")
    local started; started=$(grep -c '^Process [0-9]*: Starting on device' "$log")
    [ "$n" -gt 0 ] && [ "$n" = "$started" ] || problems+=" complete=$n/started=$started"
    grep -q -i 'mismatch\|failed' "$log" && problems+=" mismatch-or-failure-in-output"
    grep -q '^Passed: ' "$log" || problems+=" no-summary-line"
  fi
  # Lines that are not the tool's: the JVM's own reports (an AOT cache written at exit, options picked up).
  grep -q -E 'AOTCache|AOTConfiguration|Picked up|warning' "$log" && problems+=" foreign-lines-in-output"
  sleep 0.2
  [ -n "$seg" ] && ls /dev/shm | grep -q "^$seg" && problems+=" segment-left:$seg"
  pgrep -f "$CHILD" >/dev/null && problems+=" processes-left"
  problems+=$(driver_leftovers)
  local ms=$(( (t1 - t0) / 1000000 ))
  if [ -z "$problems" ]; then pass=$((pass+1)); echo "PASS $name (${ms} ms)"; else fail=$((fail+1)); echo "FAIL $name:$problems (${ms} ms)"; fi
  sed 's/^/    | /' "$log" | head -${LOG_LINES:-12}
  rm -f "$log"
}

check "default run" 0
check "--procs-per-device 2" 0 --procs-per-device 2
check "--procs-per-device 4" 0 --procs-per-device 4
check "--procs-per-device 8" 0 --procs-per-device 8
check "--size 1G" 0 --size 1G
check "--steps 10" 0 --steps 10
check "--procs-per-device 3 --size 1048583 --steps 3 (odd size)" 0 --procs-per-device 3 --size 1048583 --steps 3
check "--backend cuda --inject-corruption 0 (must fail)" 1 --backend cuda --procs-per-device 2 --inject-corruption 1
check "--devices 7 (no such device)" 64 --devices 7
# A child SIGKILLed mid-run: the run must end with exit 1 and leave nothing behind.
kill_case() {
  local log; log=$(mktemp)
  "${tool[@]}" --procs-per-device 4 --size 4K --steps 1000000 >"$log" 2>&1 &
  local parent=$!
  for _ in $(seq 1 200); do grep -q '^Step 50 done$' "$log" && break; sleep 0.05; done
  local seg; seg=$(sed -n 's/^PP: lshmName = //p' "$log" | head -1)
  pkill -9 -P "$parent" -f 'SimpleIpcChild 2$'
  local t0; t0=$(date +%s%N)
  wait $parent; local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  sleep 0.2
  local problems=""
  [ "$rc" = 1 ] || problems+=" exit=$rc(want 1)"
  grep -q '^Process 2 failed (' "$log" || problems+=" no-failure-report"
  [ -n "$seg" ] && ls /dev/shm | grep -q "^$seg" && problems+=" segment-left"
  pgrep -f "$CHILD" >/dev/null && problems+=" processes-left"
  problems+=$(driver_leftovers)
  if [ -z "$problems" ]; then pass=$((pass+1)); echo "PASS child SIGKILLed mid-run (group ended ${ms} ms after the kill)"; else fail=$((fail+1)); echo "FAIL child SIGKILLed mid-run:$problems"; fi
  grep -v '^Step' "$log" | sed 's/^/    | /' | tail -8
  rm -f "$log"
}
# KILL_RUNS=N repeats it (the moment of the kill within a step varies).
for _ in $(seq 1 "${KILL_RUNS:-1}"); do kill_case; done

echo "acceptance: $pass passed, $fail failed"
left=$(ls /dev/shm | grep '^cudaipc4j-' || true)
[ -z "$left" ] || echo "WARNING: /dev/shm holds: $left"
[ "$fail" = 0 ]
