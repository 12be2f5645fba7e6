#!/usr/bin/env bash
# The Java torch reader's own time, without a GPU: fresh `cudaipc4j bench interop` readers (tensor: a first open
# and REOPENS cached re-opens; state-dict: TENSORS shares, two per block) against a stub libcuda.so.1
# (scripts/stub-driver/libcuda-stub.c, built here with cc) whose calls return at once, on shares laid out as torch's
# (a counter file in /dev/shm; scripts/stub-driver/stub_shares.py) for each allocator of ALLOCS ('c': legacy IPC
# handles; 'e': expandable segments, whose chunks are the producer's descriptors, taken with pidfd_getfd as from
# torch's producer; 'pool': a memory-pool buffer's first import, its pool's descriptor taken the same way). What a
# reader takes there is its process's own work around the driver's calls (the JVM's and the kernel's): what the Java
# figures of scripts/interop-bench.sh hold above the driver's. Each JAR (default: this build's) runs in alternating fresh
# processes, as the launcher starts it (an AOT cache trained the launcher's way, no stub); with AOT=trained or both,
# also with an AOT cache recorded by an unrecorded reader of the same case first (-XX:AOTCacheOutput, JEP 514), as a
# service would train one on its own workload.
# The state dict is also opened as a service opens it (scale: org.cudaipc4j.bench.ServiceReader, its own main): from
# the reader's exec, no warm-up, the line saying where the time went (jvm_start, read, leases_wait, driver_wait,
# context, prepare, open).
# Writes each reader's JSON line, with its build, to OUT/stub-reader-bench.jsonl and prints the medians per build.
# Needs a Java 25 runtime (JAVA_HOME, else /usr/lib/jvm), cc and python3; no GPU, no torch.
# Usage: scripts/stub-reader-bench.sh OUT [JAR...]
#   REPEATS=10 REOPENS=50 TENSORS=100 ALLOCS=c (c, e, pool, comma-separated) AOT=launcher|trained|both CC=cc
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  ""|-*) echo "stub-reader-bench: usage: scripts/stub-reader-bench.sh OUT [JAR...] (see --help)" >&2; exit 64 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
jars=("$@")
[ ${#jars[@]} -gt 0 ] || jars=("$root/cudaipc4j-cli/target/cudaipc4j.jar")
repeats=${REPEATS:-10}
reopens=${REOPENS:-50}
tensors=${TENSORS:-100}
aot=${AOT:-launcher}
allocs=${ALLOCS:-c}

die() { echo "stub-reader-bench: $*" >&2; exit 1; }
for n in "$repeats" "$reopens" "$tensors"; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "REPEATS, REOPENS and TENSORS are whole numbers from 1, got '$n'"; done
[[ $aot == launcher || $aot == trained || $aot == both ]] || die "AOT takes launcher, trained or both, got '$aot'"
[[ $allocs =~ ^(c|e|pool)(,(c|e|pool))*$ ]] || die "ALLOCS takes c, e, pool or several, comma-separated, got '$allocs'"
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (EPOCHREALTIME, the scale case's exec time), this is bash $BASH_VERSION"
for j in "${jars[@]}"; do [ -f "$j" ] || die "no jar $j (build first: scripts/mvn.sh -q -B install -DskipTests)"; done
. "$root/scripts/java-home.sh"
find_java_home || die "needs a Java 25 runtime (JAVA_HOME or /usr/lib/jvm)"
java=$java_home/bin/java
shares=(python3 "$root/scripts/stub-driver/stub_shares.py")

mkdir -p "$out/builds" "$out/stub"
jsonl=$out/stub-reader-bench.jsonl
: > "$jsonl"
"${CC:-cc}" -O2 -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$out/stub/libcuda.so.1" \
  "$root/scripts/stub-driver/libcuda-stub.c" || die "the stub driver did not build"

work=$(mktemp -d "${TMPDIR:-/tmp}/stub-reader-bench.XXXXXX")
producer=
hold=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -z "$hold" ] || eval "exec $hold>&-" # the producer removes its counter file when its input closes
  [ -z "$producer" ] || wait "$producer" 2>/dev/null || true
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkfifo "$work/producer.in"
"${shares[@]}" producer "$work" "$reopens" "$tensors" "$allocs" < "$work/producer.in" > "$work/ready" &
producer=$!
exec {hold}>"$work/producer.in"
for _ in $(seq 100); do [ -s "$work/ready" ] && break; sleep 0.1; done
read -r word counter slots < "$work/ready" || die "the shares' producer did not start"
[ "$word" = ready ] || die "the shares' producer said '$word'"

# The cases read for ALLOC: a torch allocator's tensor and state dict, the state dict again timed from the reader's
# exec as a service opens it (scale: no warm-up), or a pool buffer's first import.
cases() { if [ "$1" = pool ]; then echo pool; else echo tensor state-dict scale; fi; }

# reader JAR LABEL CASE ALLOC [JVM options]: one fresh reader on the stub; its line, with LABEL, to the figures
# (none without a LABEL: a reader that records a cache, whose JVM reports that on standard error, kept in a log).
reader() {
  local jar=$1 label=$2 case=$3 alloc=$4 line run='exec "$@"' main=(-jar "$1" bench interop "$3" "$work/$3-$4.jsonl")
  shift 4
  "${shares[@]}" reset "$counter" "$slots"
  if [ "$case" = scale ]; then
    # The state dict's shares, by the service's reader; the clock taken by the shell just before it becomes the
    # reader is its exec time.
    main=(-cp "$jar" org.cudaipc4j.bench.ServiceReader "$work/state-dict-$alloc.jsonl")
    run='exec "$@" ${EPOCHREALTIME//[!0-9]/}'
  fi
  if ! line=$(LD_LIBRARY_PATH="$out/stub" bash -c "$run" reader "$java" --enable-native-access=ALL-UNNAMED \
      -XX:+UseSerialGC "$@" "${main[@]}" 2>"$work/reader.err"); then
    cat "$work/reader.err" >&2
    die "a $case reader of $jar ('$alloc' shares) failed"
  fi
  [ -z "$label" ] || echo "{\"build\":\"$label\",${line#\{}" >> "$jsonl"
}

# Each jar as a copy of its own (the caches are bound to the file), its cache trained as ./cudaipc4j trains one.
builds=()
i=0
for j in "${jars[@]}"; do
  i=$((i + 1))
  copy=$out/builds/$i.jar
  cp -p "$j" "$copy"
  rm -f "$out/builds/$i.aot"
  CUDAIPC4J_REPORT=$work/report.json "$java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC \
    -XX:AOTCacheOutput="$out/builds/$i.aot" -Dcudaipc4j.aotTraining=true -jar "$copy" --size 1M >/dev/null 2>&1 || true
  [ -f "$out/builds/$i.aot" ] || die "no AOT cache was trained for $j"
  if [ "$aot" != trained ]; then builds+=("$copy|$out/builds/$i.aot|$i:${j##*/}/launcher"); fi
  if [ "$aot" != launcher ]; then
    for alloc in ${allocs//,/ }; do
      for case in $(cases "$alloc"); do
        reader "$copy" "" "$case" "$alloc" -XX:AOTCacheOutput="$out/builds/$i-$case-$alloc.aot" -Xlog:aot=off \
          -Xlog:cds=off
        [ -f "$out/builds/$i-$case-$alloc.aot" ] || die "no AOT cache was recorded by a $case reader of $j ($alloc)"
      done
    done
    builds+=("$copy|$out/builds/$i-|$i:${j##*/}/trained") # a prefix: each reader's cache is PREFIX$case-$alloc.aot
  fi
done

for ((round = 1; round <= repeats; round++)); do
  for b in "${builds[@]}"; do
    IFS='|' read -r jar cache label <<< "$b"
    for alloc in ${allocs//,/ }; do
      for case in $(cases "$alloc"); do
        c=$cache
        [[ $c == *.aot ]] || c+="$case-$alloc.aot"
        reader "$jar" "$label" "$case" "$alloc" -XX:AOTCache="$c" -Xlog:aot=off -Xlog:cds=off
      done
    done
  done
done
"${shares[@]}" summary "$jsonl" | tee "$out/stub-reader-bench.txt"
