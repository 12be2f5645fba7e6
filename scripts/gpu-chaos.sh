#!/usr/bin/env bash
# Chaos trials on a GPU machine: each trial starts a simpleIPC group as a user does (./cudaipc4j, 4 processes on the
# GPU, 4 KiB buffers), sends a random signal (SIGKILL, SIGTERM or SIGINT) to a random process of it (the parent or a
# child) at a random moment (start-up, rotation, verification or teardown, as the output shows at that moment), and
# measures the time from the signal until every process of the group has ended. Then it checks what is left: our
# /dev/shm entries, the driver's (cuda.shm.*), processes, and GPU memory in use (nvidia-smi).
# Prints one row per trial and a summary with the worst time; exits 1 when a group took longer than LIMIT_MS or left
# anything behind.
# Usage: scripts/gpu-chaos.sh [TRIALS]   (default 20; LIMIT_MS=2000; TOOL=./cudaipc4j; SEED for a repeatable run;
#        RUN_ARGS for more options of every run, e.g. RUN_ARGS="--sync events")
#    or: scripts/gpu-chaos.sh --child-kills [N]   (the fixed series of scripts/gpu-chaos-child-kills.sh: N child
#        SIGKILLs mid-rotation per --sync mode, and a SIGSTOP; see its --help)
set -uo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/.."
if [ "${1:-}" = --child-kills ]; then
  shift
  exec scripts/gpu-chaos-child-kills.sh "$@"
fi
trials=${1:-20}
if ! [[ $trials =~ ^[1-9][0-9]*$ ]] || [ $# -gt 1 ]; then
  echo "gpu-chaos: usage: scripts/gpu-chaos.sh [TRIALS] (a positive number of trials; got: $*)" >&2
  exit 64
fi
limit=${LIMIT_MS:-2000}
tool=${TOOL:-./cudaipc4j}
read -r -a run_args <<<"${RUN_ARGS:-}"
RANDOM=${SEED:-$$}
signals=(KILL TERM INT)
worst=0 slow=0 leaky=0 ran=0
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
driver_shm() { ls /dev/shm 2>/dev/null | grep '^cuda\.shm' | tr '\n' ' '; }
alive() { local p; for p in "$@"; do kill -0 "$p" 2>/dev/null && printf '%s ' "$p"; done; }  # the pids still running
# The first run of a build trains the launcher's start-up cache (seconds); that is not what the trials measure.
"$tool" --size 4K >/dev/null 2>&1 || true
baseline_driver=$(driver_shm)
printf '%-5s %-6s %-8s %-13s %8s %6s  %s\n' trial signal target moment ended_ms exit left
for t in $(seq 1 "$trials"); do
  log=$(mktemp)
  steps=$(( RANDOM % 3 == 0 ? 300 : 20000 ))
  # Background jobs of a script start with SIGINT ignored; the tool must get it as from a terminal.
  env --default-signal=INT "$tool" --procs-per-device 4 --size 4K --steps "$steps" "${run_args[@]}" >"$log" 2>&1 &
  parent=$!
  sleep "0.$(printf '%03d' $(( RANDOM % 1000 )))"; sleep $(( RANDOM % 2 ))
  sig=${signals[$(( RANDOM % 3 ))]}
  target=parent; victim=$parent
  child=$(( RANDOM % 5 - 1 ))
  if [ "$child" -ge 0 ]; then
    pid=$(pgrep -P "$parent" -f "SimpleIpcChild $child\$" | head -1)
    [ -n "$pid" ] && { target="child$child"; victim=$pid; }
  fi
  if grep -q 'complete!' "$log"; then moment=teardown
  elif grep -q 'verifying' "$log"; then moment=verification
  elif grep -q '^Step' "$log"; then moment=rotation
  else moment=start-up; fi
  if ! kill -0 "$parent" 2>/dev/null; then
    wait "$parent"; echo "$t: the run ended before the signal (exit $?)"; rm -f "$log"; continue
  fi
  # The run's children, by the parent's pid: their command lines carry no name of the run.
  kids=$(pgrep -P "$parent" -f SimpleIpcChild | tr '\n' ' ')
  t0=$(now_ms)
  kill -s "$sig" "$victim" 2>/dev/null
  while kill -0 "$parent" 2>/dev/null || [ -n "$(alive $kids)" ]; do
    sleep 0.01
    [ $(( $(now_ms) - t0 )) -gt 60000 ] && break
  done
  ended=$(( $(now_ms) - t0 ))
  wait "$parent"; rc=$?
  sleep 0.2
  left=""
  ours=$(ls /dev/shm 2>/dev/null | grep "^cudaipc4j-$parent-" | tr '\n' ' ')
  [ -n "$ours" ] && left+="shm:$ours "
  drv=$(driver_shm)
  [ "$drv" != "$baseline_driver" ] && left+="driver-shm:$drv "
  procs=$(alive $kids)
  [ -n "$procs" ] && left+="processes:$procs "
  gpu=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>/dev/null | tr '\n' ' ')
  [ -n "$gpu" ] && left+="gpu-memory:$gpu"
  ran=$((ran + 1))
  [ "$ended" -gt "$worst" ] && worst=$ended
  [ "$ended" -gt "$limit" ] && slow=$((slow + 1))
  [ -n "$left" ] && leaky=$((leaky + 1))
  printf '%-5s %-6s %-8s %-13s %8s %6s  %s\n' "$t" "$sig" "$target" "$moment" "$ended" "$rc" "${left:-nothing}"
  [ -n "$left" ] && grep -v '^Step' "$log" | tail -5 | sed 's/^/      | /'
  rm -f "$log"
  baseline_driver=$(driver_shm)
done
echo "chaos: $ran trials, worst ${worst} ms from signal to the group's end (limit ${limit} ms), $slow over the limit," \
  "$leaky left something"
[ "$slow" = 0 ] && [ "$leaky" = 0 ]
