#!/usr/bin/env bash
# Interop benchmarks, each side by side with the Python side in one call (docs/performance.md, "Interop: opening
# what another process shares"): fresh Java reader processes (`cudaipc4j bench interop`) and fresh Python reader
# processes (scripts/interop_bench_py.py: torch's own reader, cuda.core's own import), interleaved round by round,
# each opening shares made for it alone by a long-lived producer:
#   tensor      one SIZE torch tensor: first open, and REOPENS cached re-opens (further shares of the same storage);
#               with it the copy bandwidth from a BW_SIZE share's mapping into local memory against local to local
#   state-dict  the weight-sync example's state dict (TENSORS tensors, mixed dtypes with bf16, 1 KiB to 256 MiB)
#   pool        a cuda.core memory-pool buffer of SIZE bytes: first import (pidfd_getfd, pool, pointer), and each
#               reader's time from its exec to the buffer imported (exec_to_open_us), by three readers in turn:
#               cuda.core's (python3 importing cuda.core), and the Java reader as a service starts it
#               (org.cudaipc4j.bench.ServiceReader pool FILE), without a start-up cache and with the AOT cache its
#               warm-up round recorded
#   scale       a state dict at a real model's size: SCALE_TENSORS bf16 tensors of SCALE_MIN to SCALE_MAX bytes, timed
#               from each reader process's exec to every share open (exec_to_open_us) and for the open alone
#               (open_us), by four readers in turn (five with SCALE_ARM): the Java reader as a service starts it (its own java and main,
#               org.cudaipc4j.bench.ServiceReader) without any start-up cache, the same with the JDK AOT cache its
#               warm-up round recorded (-XX:AOTCacheOutput; timed runs
#               with -XX:AOTCache and -XX:AOTMode=on, which refuses to start without the cache), torch's reader
#               (python3 importing torch) and a C program making only the driver calls (scripts/interop_driver_reader.c,
#               built here with the toolkit's nvcc, else cc and CUDA_HOME's cuda.h); then, for the Java reader
#               without a cache and torch's, STEADY steady rounds (the same storages shared again: cache hits) each
#               timed as one round. A failure of torch's reader or the C program (torch's out of memory on 'e' at
#               this size, say) is a line of the figures ({"failed": ...}, in the table beside Java's figure) and
#               the run goes on, the dead reader's slots given back by the producer; a Java reader's failure ends it
# for each torch allocator of ALLOCS (c: caching, legacy IPC handles; e: expandable segments). For 'c', the Java
# reader's driver calls alone are timed too (scripts/interop_bench_py.py driver-reader, through cuda.bindings).
# Writes every figure as a JSON line to OUT/interop-bench.jsonl, the table of medians and ratios to
# OUT/interop-bench.txt (and OUT/interop-bench-summary.json), and prints the table.
# Needs the build (scripts/mvn.sh -q -B package -DskipTests, or scripts/device-bundle.sh's bundle), a Java 25
# runtime (JAVA_HOME, or .jre here), python3 with torch and cuda.core, and a GPU; the scale part nvcc or cc with
# cuda.h, bash 5 (EPOCHREALTIME) and, for the default size, about 15 GB of GPU memory.
# Usage: scripts/interop-bench.sh [OUT]      (default OUT: interop-bench)
#   REPEATS=5 WARMUP=1 SIZE=64M BW_SIZE=1G REOPENS=50 TENSORS=100 ITERATIONS=20 ALLOCS=c,e
#   PARTS=tensor,state-dict,pool,scale SCALE_TENSORS=20000 SCALE_MIN=512 SCALE_MAX=2M STEADY=3
#   SCALE_ARM=NAME=OPTIONS: a fifth reader in each scale round, the Java reader without a cache started with the JVM
#   options OPTIONS too (e.g. noPrelink=-Dcudaipc4j.noPrelink=true): an A/B of a mechanism, its figures as "java-NAME"
#   JAVA_AOT=launcher|trained: the AOT cache of the Java readers run through ./cudaipc4j (tensor, state-dict; the
#   pool and scale parts start theirs as a service does): the build's, as ./cudaipc4j trains it (default), or one
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
parts=",${PARTS:-tensor,state-dict,pool,scale},"
java_aot=${JAVA_AOT:-launcher}
scale_tensors=${SCALE_TENSORS:-20000}
scale_min=${SCALE_MIN:-512}
scale_max=${SCALE_MAX:-2M}
steady=${STEADY:-3}
scale_arm=${SCALE_ARM:-}
seed=1234

die() { echo "interop-bench: $*" >&2; exit 1; }
want() { [[ $parts == *",$1,"* ]]; }
number() { [[ $2 =~ ^[0-9]+$ ]] || die "$1 must be a whole number, got '$2'"; }
number REPEATS "$repeats"; number WARMUP "$warmup"; number REOPENS "$reopens"; number TENSORS "$tensors"
number ITERATIONS "$iterations"; number SCALE_TENSORS "$scale_tensors"; number STEADY "$steady"
((repeats >= 1)) || die "REPEATS must be at least 1"
((iterations >= 1)) || die "ITERATIONS must be at least 1"
((tensors >= 1)) || die "TENSORS must be at least 1"
[[ $java_aot == launcher || $java_aot == trained ]] || die "JAVA_AOT takes launcher or trained, got '$java_aot'"
[ "$java_aot" = launcher ] || ((warmup >= 1)) || die "JAVA_AOT=trained needs a warm-up round (WARMUP >= 1): it records the caches"
for s in "$size" "$bw_size" "$scale_min" "$scale_max"; do
  [[ $s =~ ^[1-9][0-9]*[KMG]?$ ]] || die "SIZE, BW_SIZE, SCALE_MIN and SCALE_MAX are sizes like 64M or 1G, got '$s'"
done
bytes() { local n=${1%[KMG]}; case $1 in *K) echo $((n << 10)) ;; *M) echo $((n << 20)) ;; *G) echo $((n << 30)) ;; *) echo "$n" ;; esac; }
arm_name= arm_opts=()
if [ -n "$scale_arm" ]; then
  [[ $scale_arm =~ ^([A-Za-z0-9]+)=(-.+)$ ]] || die "SCALE_ARM takes NAME=OPTIONS (NAME letters and digits, OPTIONS JVM options), got '$scale_arm'"
  arm_name=${BASH_REMATCH[1]}
  read -r -a arm_opts <<< "${BASH_REMATCH[2]}"
  [[ $arm_name != aot && $arm_name != driver ]] || die "SCALE_ARM's NAME '$arm_name' is a reader's already (java-$arm_name)"
fi
for a in ${allocs//,/ }; do [[ $a == c || $a == e ]] || die "ALLOCS takes c and e, got '$a'"; done
for p in ${parts//,/ }; do
  [[ $p == tensor || $p == state-dict || $p == pool || $p == scale ]] \
    || die "PARTS takes tensor, state-dict, pool and scale, got '$p'"
done
if want scale; then
  ((scale_tensors >= 1)) || die "SCALE_TENSORS must be at least 1"
  (($(bytes "$scale_min") >= 2)) || die "SCALE_MIN must be at least 2 bytes (one bf16 element)"
  (($(bytes "$scale_min") <= $(bytes "$scale_max"))) || die "SCALE_MIN ($scale_min) is above SCALE_MAX ($scale_max)"
  ((warmup >= 1)) || die "the scale part needs a warm-up round (WARMUP >= 1): it trains the Java reader's AOT cache"
  [ -n "${EPOCHREALTIME:-}" ] || die "the scale part needs bash 5 (EPOCHREALTIME), this is bash $BASH_VERSION"
fi
if want pool; then
  ((warmup >= 1)) || die "the pool part needs a warm-up round (WARMUP >= 1): it trains the Java reader's AOT cache"
  [ -n "${EPOCHREALTIME:-}" ] || die "the pool part needs bash 5 (EPOCHREALTIME), this is bash $BASH_VERSION"
fi

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
dead_reader=0  # a peer reader failed holding its share's slots: the release gives them back
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
    echo "interop-bench: removed $python_files CUDA driver files the Python processes (or the C program) left at their exit"
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

# The Java readers start as on a JDK install, which ships the JDK's default CDS archive: a runtime without one (a
# jlinked one, scripts/make-jre.sh) is copied and given it here (java -Xshare:dump), as compare-sample.sh --java-cds.
. scripts/java-home.sh
find_java_home || die "needs a Java 25 runtime (JAVA_HOME, .jre here, or /usr/lib/jvm), as ./cudaipc4j finds one"
if [ ! -f "$java_home/lib/server/classes.jsa" ]; then
  mkdir "$work/jre"
  cp -a "$java_home/." "$work/jre/" # its files, also where JAVA_HOME is a link
  "$work/jre/bin/java" -Xshare:dump >/dev/null 2>&1 || die "java -Xshare:dump failed on a copy of $java_home"
  "$work/jre/bin/java" -Xshare:on -version >/dev/null 2>&1 || die "the CDS archive made for $java_home does not map"
  java_home=$work/jre
fi
export JAVA_HOME=$java_home

# reader LABEL ROUND CMD...: one fresh reader process; its JSON line goes to the figures (round 0 is warm-up).
# With JAVA_AOT=trained, a Java reader runs with the AOT cache of its label, which the first of them records.
# With stamp=1 (stamp=1 reader ...), the clock just before the exec, in microseconds since the epoch, is the reader's
# last argument: the scale part's readers time themselves from their exec. With training=1, the reader is a JVM that
# records its AOT cache: its standard error goes to the log, as above.
reader() {
  local label=$1 round=$2 rc=0 env=() run='echo $$ > "$0"; exec "$@"'
  shift 2
  [ "${stamp:-0}" != 1 ] || run='echo $$ > "$0"; exec "$@" "${EPOCHREALTIME//[!0-9]/}"'
  local to=$jsonl lines_before
  ((round > 0)) || to=$work/warmup.jsonl
  : >> "$to"
  lines_before=$(grep -c '' "$to" || true)
  if [ "$java_aot" = trained ] && [ "$1" = "${tool[0]}" ]; then
    env=(env CUDAIPC4J_AOT_CACHE="$work/aot-${label//[^A-Za-z0-9]/_}.aot")
  fi
  # Through a shell that writes its pid and then becomes the reader: a Python reader's pid is counted at the end.
  # (A JVM that records its AOT cache reports that on standard error: kept in a log.)
  if { ((${#env[@]} > 0)) && [ ! -f "${env[1]#*=}" ]; } || [ "${training:-0}" = 1 ]; then
    bash -c "$run" "$work/reader.pid" "${env[@]}" "$@" >> "$to" 2>> "$work/aot.log" || rc=$?
  elif [ -n "${peer:-}" ]; then  # its last words kept for the line of a failure
    bash -c "$run" "$work/reader.pid" "${env[@]}" "$@" >> "$to" 2> "$work/reader.err" || rc=$?
    cat "$work/reader.err" >&2
  else
    bash -c "$run" "$work/reader.pid" "${env[@]}" "$@" >> "$to" || rc=$?
  fi
  if [ "$1" = "${py[0]}" ] || [ "$1" = "${c_reader:-}" ]; then python_pids+=("$(cat "$work/reader.pid")"); fi
  if ((rc != 0)) && [ -n "${peer:-}" ] && (($(grep -c '' "$to") > lines_before)); then
    # It printed its figures, then failed (torch at its interpreter's exit, say): the figures stand, once.
    echo "interop-bench: $label (round $round) exited with status $rc after its figures; kept" >&2
    return 0
  fi
  if ((rc != 0)) && [ -n "${peer:-}" ]; then
    # A peer's reader that fails (torch's out of memory at a size ours opens) is a figure of the run: its line
    # says so and the run goes on.
    local words
    read -r -a words <<< "$peer"
    "${py[@]}" failed "${words[0]}" "${words[1]}" "${words[2]}" "exit status $rc: $(grep -v '^[[:space:]]*$' \
      "$work/reader.err" 2>/dev/null | tail -n 1)" >> "$to"
    echo "interop-bench: $label (round $round) failed with exit status $rc; recorded, going on" >&2
    dead_reader=1
    return 0
  fi
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

# The scale part, one round: each of its four readers (five with SCALE_ARM) on a share of its own, the first reader moving on by one each
# round. The Java reader with the AOT cache records the cache in the warm-up round (its first run).
scale_round() {  # ROUND ALLOC
  local round=$1 alloc=$2 i k impl rounds files to lines aot=$work/scale-$2.aot
  local order=(java java-aot torch c) steady_files=() sc=$work/sc.jsonl
  [ -z "$arm_name" ] || order+=(arm)
  local n=${#order[@]}
  local first=$(((round % n + n) % n))
  for ((i = 0; i < n; i++)); do
    impl=${order[(first + i) % n]}
    rounds=0
    [[ $impl != java && $impl != torch ]] || rounds=$steady
    ask share scale "$sc" "$scale_tensors" "$scale_min" "$scale_max" "$seed" "$rounds"
    files=-
    steady_files=()
    for ((k = 1; k <= rounds; k++)); do
      steady_files+=("$sc.$k")
      if ((k == 1)); then files=$sc.$k; else files+=",$sc.$k"; fi
    done
    case $impl in
      java) stamp=1 reader "java scale ($alloc)" "$round" "$java" "${java_opts[@]}" -cp "$jar" "$service_reader" \
              "$sc" "${steady_files[@]}" ;;
      java-aot)
        if [ -f "$aot" ]; then
          stamp=1 reader "java scale, AOT cache ($alloc)" "$round" "$java" -XX:AOTCache="$aot" -XX:AOTMode=on \
            "${java_opts[@]}" -cp "$jar" "$service_reader" "$sc"
        elif ((round < 1)); then  # the training run, as a service trains its cache: its JSON line is warm-up's
          stamp=1 training=1 reader "java scale, AOT training ($alloc)" "$round" "$java" -XX:AOTCacheOutput="$aot" \
            "${java_opts[@]}" -cp "$jar" "$service_reader" "$sc"
          [ -f "$aot" ] || die "the Java reader's AOT training run ($alloc) wrote no cache $aot"
        else
          die "no AOT cache $aot for the Java reader ($alloc)"
        fi ;;
      arm) to=$jsonl; ((round > 0)) || to=$work/warmup.jsonl
           lines=0; [ ! -f "$to" ] || lines=$(grep -c '' "$to" || true)
           stamp=1 reader "java scale, $arm_name ($alloc)" "$round" "$java" "${arm_opts[@]}" "${java_opts[@]}" -cp \
             "$jar" "$service_reader" "$sc"
           # The arm's line named as its own (the reader cannot tell it from the plain one): its one line, last.
           sed -i '$ s/^{"impl":"java",/{"impl":"java-'"$arm_name"'",/' "$to"
           (($(grep -c '' "$to") == lines + 1)) && tail -n 1 "$to" | grep -q "^{\"impl\":\"java-$arm_name\"," \
             || die "the $arm_name arm's reader (round $round) printed no one line of figures of its own to relabel" ;;
      torch) stamp=1 peer="torch scale $alloc" reader "torch scale ($alloc)" "$round" "${py[@]}" torch-reader scale \
               "$sc" "$files" ;;
      c) stamp=1 peer="c scale $alloc" reader "C driver calls scale ($alloc)" "$round" "$c_reader" "$sc.lines" ;;
    esac
    if ((dead_reader)); then ask release dead; else ask release; fi
    dead_reader=0
  done
}

if want scale; then
  # The C program, built with the toolkit (nvcc finds libcuda's stub itself; cc is given the toolkit's folders).
  c_reader=$work/interop-driver-reader
  cuda_home=${CUDA_HOME:-/usr/local/cuda}
  if ! { command -v nvcc >/dev/null && nvcc -O2 -o "$c_reader" scripts/interop_driver_reader.c -lcuda; } \
      2> "$work/cc.log" && ! cc -O2 -I"$cuda_home/include" -o "$c_reader" scripts/interop_driver_reader.c \
      -L"$cuda_home/lib64/stubs" -L"$cuda_home/lib64" -lcuda 2>> "$work/cc.log"; then
    cat "$work/cc.log" >&2
    die "cannot build scripts/interop_driver_reader.c (nvcc, or cc with $cuda_home/include/cuda.h and libcuda)"
  fi
fi
if want scale || want pool; then
  # The Java reader as a service starts it: its own java and main, no launcher, no command line of the tool's
  java=${JAVA_HOME:+$JAVA_HOME/bin/}java
  jar=$PWD/cudaipc4j-cli/target/cudaipc4j.jar
  java_opts=(--enable-native-access=ALL-UNNAMED)
  service_reader=org.cudaipc4j.bench.ServiceReader
  command -v "$java" >/dev/null || die "no java to start the Java reader with (set JAVA_HOME)"
fi

if want tensor || want state-dict || want scale; then
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
      if want tensor || want state-dict; then
        if ((round % 2)); then torch_round "$round" "$alloc" java; else torch_round "$round" "$alloc" python; fi
      fi
      if want scale; then scale_round "$round" "$alloc"; fi
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
  # Per round, each reader from its process's exec, the first moving on by one each round: cuda.core's, and the Java
  # reader as a service starts it, without a cache and with the AOT cache its warm-up round recorded.
  pool_aot=$work/pool.aot
  pool_order=(cuda.core java java-aot)
  for ((round = 1 - warmup; round <= repeats; round++)); do
    for ((i = 0; i < 3; i++)); do
      case ${pool_order[((round % 3 + 3 + i) % 3)]} in
        cuda.core) stamp=1 reader "cuda.core pool" "$round" "${py[@]}" pool-reader "$work/pool.jsonl" ;;
        java) stamp=1 reader "java pool" "$round" "$java" "${java_opts[@]}" -cp "$jar" "$service_reader" pool \
                "$work/pool.jsonl" ;;
        java-aot)
          if [ -f "$pool_aot" ]; then
            stamp=1 reader "java pool, AOT cache" "$round" "$java" -XX:AOTCache="$pool_aot" -XX:AOTMode=on \
              "${java_opts[@]}" -cp "$jar" "$service_reader" pool "$work/pool.jsonl"
          elif ((round < 1)); then  # the training run, as a service trains its cache
            stamp=1 training=1 reader "java pool, AOT training" "$round" "$java" -XX:AOTCacheOutput="$pool_aot" \
              "${java_opts[@]}" -cp "$jar" "$service_reader" pool "$work/pool.jsonl"
            [ -f "$pool_aot" ] || die "the Java pool reader's AOT training run wrote no cache $pool_aot"
          else
            die "no AOT cache $pool_aot for the Java pool reader"
          fi ;;
      esac
    done
  done
  close_fd "$pool_in"
  pool_in=
  wait "$pool_pid" || die "the cuda.core pool producer exited with status $?"
  pool_pid=
fi

"${py[@]}" summary "$jsonl" "$out/interop-bench-summary.json" | tee "$out/interop-bench.txt"
echo "interop-bench: $(grep -c '^{' "$jsonl") figures lines in $jsonl; $((SECONDS - start)) s"
