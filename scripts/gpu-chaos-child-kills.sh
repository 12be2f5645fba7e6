#!/usr/bin/env bash
# A child killed in the middle of the rotation, per --sync mode, on a GPU machine: N trials per mode of MODES, each a
# simpleIPC group as a user starts it (./cudaipc4j --backend cuda --procs-per-device 4 --size 4K), one of its children
# (at random) SIGKILLed at a random moment 0-200 ms after process 0 reported step 64. Per trial: the time from the
# kill to the run's "Failed:" line (line_ms) and to the exit of the group's last process (end_ms), for each process
# (p: the parent, cN: child N) when it began to exit and when it ended (ms after the kill, as X/E; a gap there is
# the kernel's and the driver's teardown of the process), and what of ours was left: /dev/shm/cudaipc4j-<parent>-*,
# ${TMPDIR:-/tmp}/cudaipc4j-<parent>-*, the group's /tmp/hsperfdata_<user>/<pid> files, driver files (cuda.shm.*) that
# were not there before, processes of the group, GPU memory held by them (nvidia-smi). Then, per mode, one child
# SIGSTOPped in the rotation: the group must end within 5 s, with a line naming the stopped process.
# Prints a row per trial and a table per mode (median, max, over the limit, leftovers); exits 1 when a group took
# longer than LIMIT_MS to print its outcome or to end, left anything, or a SIGSTOP trial failed.
# Usage: scripts/gpu-chaos-child-kills.sh [N]   (default 20; MODES="counters events"; a mode "events@8" runs events
#        with CUDA_DEVICE_MAX_CONNECTIONS=8; LIMIT_MS=1000; TOOL=./cudaipc4j; SEED for a repeatable run)
# About 1.5 s a trial when groups end at once (2 minutes for the default), up to 10 s for a trial that waits on the
# driver's teardown.
set -uo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/.."
trials=${1:-20}
if ! [[ $trials =~ ^[1-9][0-9]*$ ]] || [ $# -gt 1 ]; then
  echo "gpu-chaos-child-kills: usage: scripts/gpu-chaos-child-kills.sh [N] (trials per mode; got: $*)" >&2
  exit 64
fi
limit=${LIMIT_MS:-1000}
stop_limit=5000
tool=${TOOL:-./cudaipc4j}
read -r -a modes <<<"${MODES:-counters events}"
RANDOM=${SEED:-$$}
user=$(id -un)
tmp=${TMPDIR:-/tmp}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
driver_shm() { ls /dev/shm 2>/dev/null | grep '^cuda\.shm' | sort | tr '\n' ' '; }
# Ended as the project counts it (Pids.isAlive): gone, or a zombie whose threads have all ended (not yet reaped, as
# the parent's own exit is until this script waits for it). A zombie leader with threads still running (the last
# one tearing down the process's device state) has not ended.
ended() {
  local stat fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  read -r -a fields <<<"${stat##*) }"
  case ${fields[0]} in
    X|x) return 0 ;;
    Z) [ "${fields[17]:-1}" -le 1 ] ;;
    *) return 1 ;;
  esac
}
# Exiting: its main thread has begun to exit (PF_EXITING, 0x4, in /proc/PID/stat's flags, or a zombie already), or
# it has ended. A process that the kernel takes long to end after that (the driver's teardown of its device state)
# shows as an early "exiting" and a late end.
exiting() {
  local stat fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  read -r -a fields <<<"${stat##*) }"
  case ${fields[0]} in Z|X|x) return 0 ;; esac
  (( fields[6] & 4 ))
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
  else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
maximum() { sort -n | awk '{ v = $1 } END { print NR ? v : "-" }'; }
# What of the group ($1 the parent, then its children's pids) is left, as words; empty when nothing.
leftovers() {
  local parent=$1 left="" p f
  shift
  f=$(ls /dev/shm 2>/dev/null | grep "^cudaipc4j-$parent-" | tr '\n' ' ')
  [ -n "$f" ] && left+="shm:$f"
  f=$(ls "$tmp" 2>/dev/null | grep "^cudaipc4j-$parent-" | tr '\n' ' ')
  [ -n "$f" ] && left+="tmp:$f"
  for p in "$parent" "$@"; do
    [ -e "/tmp/hsperfdata_$user/$p" ] && left+="hsperfdata:$p "
  done
  f=$(driver_shm)
  [ "$f" != "$baseline_driver" ] && left+="driver-shm:$(comm -13 <(tr ' ' '\n' <<<"$baseline_driver" | sort) \
    <(tr ' ' '\n' <<<"$f" | sort) | tr '\n' ' ')"
  for p in "$@"; do ended "$p" || left+="process:$p "; done
  if command -v nvidia-smi >/dev/null 2>&1; then
    f=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null)
    for p in "$parent" "$@"; do
      grep -qx "$p" <<<"$f" && left+="gpu-memory:$p "
    done
  fi
  printf '%s' "$left"
}

# One group of mode $1 (a --sync mode, @Q for Q work queues), signal $2 (KILL or STOP) to a random child. Sets
# line_ms, end_ms, ends, last, rc, left, victim, out (the run's output without its step lines, last lines).
run_trial() {
  local mode=${1%@*} queues="" sig=$2 log parent kids p t0 t now child pid i seen_line=0
  [[ $1 == *@* ]] && queues=${1#*@}
  line_ms=- end_ms=- ends="" last=- rc=- left="" victim=- out=""
  log=$(mktemp)
  # Background jobs of a script start with SIGINT ignored; the tool must get it as from a terminal.
  env --default-signal=INT ${queues:+CUDA_DEVICE_MAX_CONNECTIONS=$queues} "$tool" --backend cuda \
    --procs-per-device 4 --size 4K --steps 1000000 --sync "$mode" --timeout 60s >"$log" 2>&1 &
  parent=$!
  t0=$(now_ms)
  until grep -q '^Step 64 done' "$log"; do
    if ! kill -0 "$parent" 2>/dev/null || [ $(( $(now_ms) - t0 )) -gt 30000 ]; then
      kill -KILL "$parent" 2>/dev/null; wait "$parent" 2>/dev/null; rc=$?
      out=$(grep -v '^Step' "$log" | tail -5); rm -f "$log"; left="no rotation (exit $rc)"; return
    fi
    sleep 0.01
  done
  sleep "0.$(printf '%03d' $(( RANDOM % 200 )))"
  child=$(( RANDOM % 4 ))
  pid=$(pgrep -P "$parent" -f "SimpleIpcChild $child\$" | head -1)
  kids=$(pgrep -P "$parent" -f SimpleIpcChild | tr '\n' ' ')
  if [ -z "$pid" ]; then
    kill -KILL "$parent" $kids 2>/dev/null; wait "$parent" 2>/dev/null; rc=$?
    out=$(grep -v '^Step' "$log" | tail -5); rm -f "$log"; left="no child $child to signal (exit $rc)"; return
  fi
  declare -A name=([$parent]=p) end=() leaving=()
  for p in $kids; do
    i=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | awk '{ print $NF }')
    name[$p]=c$i
  done
  victim=c$child
  t0=$(now_ms)
  kill -s "$sig" "$pid"
  while :; do
    now=$(now_ms); t=$(( now - t0 ))
    if [ "$seen_line" = 0 ] && grep -q '^Failed: ' "$log"; then line_ms=$t; seen_line=1; fi
    local running=0
    for p in "$parent" $kids; do
      [ -n "${end[$p]:-}" ] && continue
      [ -z "${leaving[$p]:-}" ] && exiting "$p" && leaving[$p]=$t
      if ended "$p"; then end[$p]=$t; else running=1; fi
    done
    [ "$running" = 0 ] && break
    [ "$t" -gt 60000 ] && { kill -KILL "$parent" $kids 2>/dev/null; break; }
    sleep 0.005
  done
  [ "$seen_line" = 0 ] && grep -q '^Failed: ' "$log" && line_ms=$(( $(now_ms) - t0 ))
  end_ms=0
  for p in "$parent" $kids; do
    ends+="${name[$p]}:${leaving[$p]:--}/${end[$p]:--} "
    if [ "${end[$p]:-0}" -ge "$end_ms" ]; then end_ms=${end[$p]:-0}; last=${name[$p]}; fi
  done
  wait "$parent" 2>/dev/null; rc=$?
  sleep 0.2
  # shellcheck disable=SC2086
  left=$(leftovers "$parent" $kids)
  out=$(grep -v '^Step' "$log" | tail -6)
  last_log=$(cat "$log"); rm -f "$log"
  baseline_driver=$(driver_shm)
}

# The first run of a build trains the launcher's start-up cache (seconds); that is not what the trials measure.
"$tool" --backend cuda --size 4K >/dev/null 2>&1 || true
baseline_driver=$(driver_shm)
failed=0
declare -A summary=()
printf '%-9s %-5s %-6s %7s %7s %-5s %4s  %-52s %s\n' mode trial victim line_ms end_ms last exit 'exiting/ended' left
for mode in "${modes[@]}"; do
  ends_file=$(mktemp); lines_file=$(mktemp); leaky=0 slow=0 ran=0
  for t in $(seq 1 "$trials"); do
    run_trial "$mode" KILL
    ran=$((ran + 1))
    printf '%-9s %-5s %-6s %7s %7s %-5s %4s  %-52s %s\n' "$mode" "$t" "$victim" "$line_ms" "$end_ms" "$last" "$rc" \
      "$ends" "${left:-nothing}"
    if [ "$end_ms" = - ] || [ "$line_ms" = - ]; then
      slow=$((slow + 1))
    else
      echo "$end_ms" >>"$ends_file"; echo "$line_ms" >>"$lines_file"
      { [ "$end_ms" -gt "$limit" ] || [ "$line_ms" -gt "$limit" ]; } && slow=$((slow + 1))
    fi
    [ -n "$left" ] && leaky=$((leaky + 1))
    { [ -n "$left" ] || [ "$end_ms" = - ] || [ "$line_ms" = - ]; } && printf '%s\n' "$out" | sed 's/^/      | /'
  done
  summary[$mode]="$ran $(median <"$ends_file") $(maximum <"$ends_file") $(median <"$lines_file") $(maximum <"$lines_file") $slow $leaky"
  [ "$slow" != 0 ] || [ "$leaky" != 0 ] && failed=1
  rm -f "$ends_file" "$lines_file"
done

echo
echo "SIGSTOP of one child in the rotation (limit $stop_limit ms, a line naming it):"
stops=""
for mode in "${modes[@]}"; do
  run_trial "$mode" STOP
  named=$(grep -E "^Process ${victim#c} failed \(stopped responding for [0-9.]+ s\)" <<<"$last_log" | head -1)
  verdict=ok
  if [ "$end_ms" = - ] || [ "$end_ms" -gt "$stop_limit" ] || [ -z "$named" ] || [ -n "$left" ]; then
    verdict=FAILED; failed=1
  fi
  printf '  %-9s %-6s ended %s ms after the SIGSTOP (last: %s, exit %s), %s; left: %s: %s\n' "$mode" "$victim" \
    "$end_ms" "$last" "$rc" "${named:-no line names it}" "${left:-nothing}" "$verdict"
  [ "$verdict" = ok ] || printf '%s\n' "$out" | sed 's/^/      | /'
  stops+="$mode:$end_ms "
done

echo
echo "Child SIGKILLed mid-rotation, --backend cuda --procs-per-device 4, $trials trials per mode (ms after the kill;"
echo "over: trials whose line or end came after $limit ms; left: trials that left something):"
printf '| %-9s | %6s | %10s | %7s | %11s | %8s | %4s | %4s |\n' mode trials "end median" "end max" "line median" \
  "line max" over left
printf '|%s|\n' "-----------|--------|------------|---------|-------------|----------|------|------"
for mode in "${modes[@]}"; do
  read -r ran em ex lm lx slow leaky <<<"${summary[$mode]}"
  printf '| %-9s | %6s | %10s | %7s | %11s | %8s | %4s | %4s |\n' "$mode" "$ran" "$em" "$ex" "$lm" "$lx" "$slow" \
    "$leaky"
done
echo "SIGSTOP: $stops(ms from the signal to the last exit)"
exit "$failed"
