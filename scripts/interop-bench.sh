#!/usr/bin/env bash
# Interop benchmarks, each side by side with the Python side in one call (docs/performance.md, "Interop: opening
# what another process shares"): fresh Java reader processes (`cudaipc4j bench interop`) and fresh Python reader
# processes (scripts/interop_bench_py.py: torch's own reader, cuda.core's own import), interleaved round by round,
# each opening shares made for it alone by a long-lived producer:
#   tensor      one SIZE torch tensor: first open, and REOPENS cached re-opens (further shares of the same storage);
#               with it the copy bandwidth from a BW_SIZE share's mapping into local memory against local to local
#   state-dict  the weight-sync example's state dict (TENSORS tensors, mixed dtypes with bf16, 1 KiB to 256 MiB)
#   pool        a cuda.core memory-pool buffer of SIZE bytes: first import (pidfd_getfd, pool, pointer)
# for each torch allocator of ALLOCS (c: caching, legacy IPC handles; e: expandable segments). For 'c', the Java
# reader's driver calls alone are timed too (scripts/interop_bench_py.py driver-reader, through cuda.bindings).
# Writes every figure as a JSON line to OUT/interop-bench.jsonl, the table of medians and ratios to
# OUT/interop-bench.txt (and OUT/interop-bench-summary.json), and prints the table.
# Needs the build (scripts/mvn.sh -q -B package -DskipTests, or scripts/device-bundle.sh's bundle), a Java 25
# runtime (JAVA_HOME, or .jre here), python3 with torch and cuda.core, and a GPU.
# Usage: scripts/interop-bench.sh [OUT]      (default OUT: interop-bench)
#   REPEATS=5 WARMUP=1 SIZE=64M BW_SIZE=1G REOPENS=50 TENSORS=100 ITERATIONS=20 ALLOCS=c,e PARTS=tensor,state-dict,pool
#   JAVA_AOT=launcher|trained: the Java readers' AOT cache: the build's, as ./cudaipc4j trains it (default), or one
#   per reader kind, recorded by its reader of the warm-up round (CUDAIPC4J_AOT_CACHE), as a service trains its own
set -euo pipefail
# Help, and a first argument that is an option (where a path goes) refused, before anything runs.
case "${1:-}" in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "interop-bench: usage: scripts/interop-bench.sh [OUT] (see scripts/interop-bench.sh --help); got $1" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/.."
out=${1:-interop-bench}
repeats=${REPEATS:-5}
warmup=${WARMUP:-1}
size=${SIZE:-64M}
bw_size=${BW_SIZE:-1G}
reopens=${REOPENS:-50}
tensors=${TENSORS:-100}
iterations=${ITERATIONS:-20}
allocs=${ALLOCS:-c,e}
parts=",${PARTS:-tensor,state-dict,pool},"
java_aot=${JAVA_AOT:-launcher}
seed=1234

die() { echo "interop-bench: $*" >&2; exit 1; }
want() { [[ $parts == *",$1,"* ]]; }
number() { [[ $2 =~ ^[0-9]+$ ]] || die "$1 must be a whole number, got '$2'"; }
number REPEATS "$repeats"; number WARMUP "$warmup"; number REOPENS "$reopens"; number TENSORS "$tensors"
number ITERATIONS "$iterations"
((repeats >= 1)) || die "REPEATS must be at least 1"
((iterations >= 1)) || die "ITERATIONS must be at least 1"
((tensors >= 1)) || die "TENSORS must be at least 1"
[[ $java_aot == launcher || $java_aot == trained ]] || die "JAVA_AOT takes launcher or trained, got '$java_aot'"
[ "$java_aot" = launcher ] || ((warmup >= 1)) || die "JAVA_AOT=trained needs a warm-up round (WARMUP >= 1): it records the caches"
for s in "$size" "$bw_size"; do
  [[ $s =~ ^[1-9][0-9]*[KMG]?$ ]] || die "SIZE and BW_SIZE are sizes like 64M or 1G, got '$s'"
done
for a in ${allocs//,/ }; do [[ $a == c || $a == e ]] || die "ALLOCS takes c and e, got '$a'"; done
for p in ${parts//,/ }; do
  [[ $p == tensor || $p == state-dict || $p == pool ]] || die "PARTS takes tensor, state-dict and pool, got '$p'"
done

if [ -z "${JAVA_HOME:-}" ] && [ -x .jre/bin/java ]; then
  export JAVA_HOME=$PWD/.jre
fi
[ -f cudaipc4j-cli/target/cudaipc4j.jar ] || die "no cudaipc4j-cli/target/cudaipc4j.jar: build first"
command -v python3 >/dev/null || die "python3 is not on the PATH"
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
py=(python3 "$PWD/scripts/interop_bench_py.py")
tool=("$PWD/cudaipc4j")

mkdir -p "$out"
jsonl=$out/interop-bench.jsonl
: > "$jsonl"
work=$(mktemp -d "${TMPDIR:-/tmp}/interop-bench.XXXXXX")
close_fd() { eval "exec $1>&-"; }
shm_list() { ls -1 /dev/shm 2>/dev/null | sort; }
shm_before=$(shm_list)
producer_pid=
producer_in=
producer_out=
pool_pid=
pool_in=
python_pids=()
start=$SECONDS

# Ends the producers (they end on their own when their stdin closes; killed after 10 s), removes the work folder,
# and checks /dev/shm: an entry of torch's or ours that this run left fails the run (and is removed). The CUDA
# driver's files (cuda.shm.<n>.<pid in hex>.<m>) of processes that ended during the run are removed too: torch
# leaves its process's file behind even at a normal exit, so those of this run's Python processes are counted;
# any other (a Java reader's, which the driver removes at its exit) fails the run.
cleanup() {
  local rc=$? pid left f h py_hex=" " python_files=0 other=
  trap - EXIT INT TERM
  if [ -n "$producer_in" ]; then close_fd "$producer_in"; fi
  if [ -n "$pool_in" ]; then close_fd "$pool_in"; fi
  for pid in $producer_pid $pool_pid; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "interop-bench: producer $pid did not end; killed" >&2
      kill -KILL "$pid" 2>/dev/null || true
      [ "$rc" != 0 ] || rc=1
    fi
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
  left=$(comm -13 <(printf '%s\n' "$shm_before") <(shm_list) | grep -E '^(torch_|cudaipc4j-)' || true)
  if [ -n "$left" ]; then
    echo "interop-bench: left in /dev/shm (removed now):" $left >&2
    for f in $left; do rm -f "/dev/shm/$f"; done
    [ "$rc" != 0 ] || rc=1
  fi
  for pid in "${python_pids[@]}"; do py_hex+="$(printf %x "$pid") "; done
  for f in $(comm -13 <(printf '%s\n' "$shm_before") <(shm_list) | grep '^cuda\.shm\.' || true); do
    h=${f#cuda.shm.*.}; h=${h%%.*}
    [[ $h =~ ^[0-9a-f]+$ ]] || continue
    [ ! -d "/proc/$((16#$h))" ] || continue # a running process's
    if [[ $py_hex == *" $h "* ]]; then python_files=$((python_files + 1)); else other+=" $f"; fi
    rm -f "/dev/shm/$f"
  done
  if ((python_files > 0)); then
    echo "interop-bench: removed $python_files CUDA driver files the Python processes left at their exit"
  fi
  if [ -n "$other" ]; then
    echo "interop-bench: CUDA driver files of other ended processes left in /dev/shm (removed now):$other" >&2
    [ "$rc" != 0 ] || rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# reader LABEL ROUND CMD...: one fresh reader process; its JSON line goes to the figures (round 0 is warm-up).
# With JAVA_AOT=trained, a Java reader runs with the AOT cache of its label, which the first of them records.
reader() {
  local label=$1 round=$2 rc=0 env=()
  shift 2
  local to=$jsonl
  ((round > 0)) || to=$work/warmup.jsonl
  if [ "$java_aot" = trained ] && [ "$1" = "${tool[0]}" ]; then
    env=(env CUDAIPC4J_AOT_CACHE="$work/aot-${label//[^A-Za-z0-9]/_}.aot")
  fi
  # Through a shell that writes its pid and then becomes the reader: a Python reader's pid is counted at the end.
  # (A JVM that records its AOT cache reports that on standard error: kept in a log.)
  if ((${#env[@]} > 0)) && [ ! -f "${env[1]#*=}" ]; then
    bash -c 'echo $$ > "$0"; exec "$@"' "$work/reader.pid" "${env[@]}" "$@" >> "$to" 2>> "$work/aot.log" || rc=$?
  else
    bash -c 'echo $$ > "$0"; exec "$@"' "$work/reader.pid" "${env[@]}" "$@" >> "$to" || rc=$?
  fi
  [ "$1" != "${py[0]}" ] || python_pids+=("$(cat "$work/reader.pid")")
  if ((rc != 0)); then
    [ ! -s "$work/aot.log" ] || tail -n 20 "$work/aot.log" >&2
    die "$label (round $round) failed with exit status $rc: $*"
  fi
}

# ask COMMAND...: one command to the torch producer; its answer in $reply (shared ... or released).
ask() {
  kill -0 "$producer_pid" 2>/dev/null || die "the torch producer has ended (asked: $*)"
  echo "$*" >&"$producer_in" || die "the torch producer does not read (asked: $*)"
  IFS= read -r -t 600 reply <&"$producer_out" || die "the torch producer did not answer '$*'"
  [[ $reply == "$1"* || ($1 == release && $reply == released) ]] || die "the torch producer answered '$reply' to '$*'"
}

torch_round() {  # ROUND ALLOC FIRST(java|python)
  local round=$1 alloc=$2 first=$3 impl
  local order=(java python)
  [ "$first" = java ] || order=(python java)
  for impl in "${order[@]}"; do
    if want tensor; then
      ask share tensor "$work/t.jsonl" "$size" "$reopens"
      ask share bw "$work/bw.jsonl" "$bw_size"
      if [ "$impl" = java ]; then
        reader "java tensor ($alloc)" "$round" "${tool[@]}" bench interop tensor "$work/t.jsonl" \
          --bandwidth "$work/bw.jsonl" --iterations "$iterations"
      else
        reader "torch tensor ($alloc)" "$round" "${py[@]}" torch-reader tensor "$work/t.jsonl" "$work/bw.jsonl" \
          "$iterations"
      fi
      ask release
    fi
    if want state-dict; then
      ask share state-dict "$work/sd.jsonl"
      if [ "$impl" = java ]; then
        reader "java state dict ($alloc)" "$round" "${tool[@]}" bench interop state-dict "$work/sd.jsonl"
      else
        reader "torch state dict ($alloc)" "$round" "${py[@]}" torch-reader state-dict "$work/sd.jsonl"
      fi
      ask release
    fi
  done
  # The Java reader's driver calls alone, through cuda.bindings (the floor under any reader keeping the contract)
  # and through the Java binding (what FFM adds to it), in the round's order.
  if [ "$alloc" = c ]; then
    for impl in "${order[@]}"; do
      local floor=("${py[@]}" driver-reader) flag=() name="cuda.bindings"
      if [ "$impl" = java ]; then floor=("${tool[@]}" bench interop) flag=(--driver-only) name="FFM"; fi
      if want tensor; then
        ask share tensor "$work/t.jsonl" "$size" "$reopens"
        reader "driver calls tensor ($alloc, $name)" "$round" "${floor[@]}" tensor "$work/t.jsonl" "${flag[@]}"
        ask release
      fi
      if want state-dict; then
        ask share state-dict "$work/sd.jsonl"
        reader "driver calls state dict ($alloc, $name)" "$round" "${floor[@]}" state-dict "$work/sd.jsonl" \
          "${flag[@]}"
        ask release
      fi
    done
  fi
}

if want tensor || want state-dict; then
  for alloc in ${allocs//,/ }; do
    conf=expandable_segments:False
    [ "$alloc" = c ] || conf=expandable_segments:True
    rm -f "$work/producer.in" "$work/producer.out"
    mkfifo "$work/producer.in" "$work/producer.out"
    PYTORCH_CUDA_ALLOC_CONF=$conf "${py[@]}" torch-producer "$tensors" "$seed" \
      < "$work/producer.in" > "$work/producer.out" &
    producer_pid=$!
    python_pids+=("$producer_pid")
    # Opened in the order the producer opens them (a FIFO's open waits for the other end).
    exec {producer_in}>"$work/producer.in" {producer_out}<"$work/producer.out"
    IFS= read -r -t 300 reply <&"$producer_out" || die "the torch producer ($alloc) did not start"
    echo "torch producer ($alloc): $reply"
    for ((round = 1 - warmup; round <= repeats; round++)); do
      if ((round % 2)); then torch_round "$round" "$alloc" java; else torch_round "$round" "$alloc" python; fi
    done
    echo quit >&"$producer_in"
    close_fd "$producer_in"
    close_fd "$producer_out"
    producer_in=
    producer_out=
    wait "$producer_pid" || die "the torch producer ($alloc) exited with status $?"
    producer_pid=
  done
fi

if want pool; then
  mkfifo "$work/pool.in"
  "${py[@]}" pool-producer "$work/pool.jsonl" "$size" < "$work/pool.in" > "$work/pool.out" &
  pool_pid=$!
  python_pids+=("$pool_pid")
  exec {pool_in}>"$work/pool.in"
  for _ in $(seq 600); do
    [ -s "$work/pool.out" ] && break
    kill -0 "$pool_pid" 2>/dev/null || die "the cuda.core pool producer exited before it was ready"
    sleep 0.1
  done
  [ -s "$work/pool.out" ] || die "the cuda.core pool producer was not ready within 60 s"
  echo "cuda.core pool producer: $(cat "$work/pool.out")"
  for ((round = 1 - warmup; round <= repeats; round++)); do
    java=("${tool[@]}" bench interop pool "$work/pool.jsonl")
    python=("${py[@]}" pool-reader "$work/pool.jsonl")
    if ((round % 2)); then
      reader "java pool" "$round" "${java[@]}"; reader "cuda.core pool" "$round" "${python[@]}"
    else
      reader "cuda.core pool" "$round" "${python[@]}"; reader "java pool" "$round" "${java[@]}"
    fi
  done
  close_fd "$pool_in"
  pool_in=
  wait "$pool_pid" || die "the cuda.core pool producer exited with status $?"
  pool_pid=
fi

"${py[@]}" summary "$jsonl" "$out/interop-bench-summary.json" | tee "$out/interop-bench.txt"
echo "interop-bench: $(grep -c '^{' "$jsonl") figures lines in $jsonl; $((SECONDS - start)) s"
