#!/usr/bin/env bash
# Times NVIDIA's simpleIPC sample (CUDA Samples, C++) against cudaipc4j on this machine's GPUs: builds the sample
# with nvcc, then runs it and each command to compare in turn, RUNS times after one warm-up run of each, and
# prints every run's wall time, the medians (interquartile ranges and ranges) and each command's ratio of medians to
# the sample's (with --no-sample, the commands alone, against the first).
#
# Usage: scripts/compare-sample.sh [OPTIONS] [SAMPLE] [RUNS]
#   SAMPLE  the sample's folder in a CUDA Samples checkout (Samples/0_Introduction/simpleIPC; the helpers it
#           includes are taken from ../../../Common there, or from --common DIR), its simpleIPC.cu, or a simpleIPC
#           binary built already. Default: docs/harness/simpleIPC, the copy this repository ships (BSD-3-Clause,
#           NVIDIA's licence kept beside it) for machines without the samples.
#   RUNS    timed runs of each command (default 10; or --runs N), alternating: sample, command 1, ..., sample, ...
# Commands compared (default: --tool alone):
#   --tool                ./cudaipc4j, the launcher (one work queue per context, the AOT start-up cache)
#   --tool-args "ARGS"    ./cudaipc4j ARGS, e.g. "--ipc vmm" or "--kernel simple"
#   --java RUNTIME        plain `RUNTIME/bin/java --enable-native-access=ALL-UNNAMED -jar cudaipc4j.jar`, as a user
#                         runs it on that runtime (e.g. the jlinked .jre of scripts/make-jre.sh)
#   --java-cds RUNTIME    the same on a copy of RUNTIME given the JDK's default CDS archive here
#                         (`java -Xshare:dump`, which JDK installs ship and a plain jlinked runtime lacks)
#   --cmd LABEL=COMMAND   any other command, run by bash
#   --sample-one-queue    the sample again with CUDA_DEVICE_MAX_CONNECTIONS=1, the setting the tool gives its own
#                         processes
#   --no-sample           the commands alone, the ratios against the first: an A/B of the tool's own arms where
#                         there is no nvcc or GPU (./cudaipc4j then runs on the host backend)
# Other options:
#   --steps P:R1:R2       the rotation's steady state instead of whole runs: P processes on device 0, RUNS pairs of
#                         runs of R1 and R2 rounds (a round is P steps); prints the marginal cost of a step,
#                         (wall time of R2 - wall time of R1) / ((R2 - R1) x P), per pair and their median. The
#                         sample is built with docs/harness/simpleIPC-rounds.patch (its processes per GPU and
#                         rounds from SIMPLEIPC_PROCS_PER_GPU and SIMPLEIPC_ROUNDS); every other command gets
#                         `--procs-per-device P --steps R` appended.
#   --mps                 run everything under a private MPS control daemon of this user (quit afterwards)
#   --common DIR          the folder with helper_cuda.h, helper_string.h and helper_multiprocess.{h,cpp}
#   --nvcc-flags "FLAGS"  default "-O3 -arch=native" ($NVCC names the compiler, default nvcc)
#   --jar JAR             the tool's jar for --java and --java-cds (default cudaipc4j-cli/target/cudaipc4j.jar)
# Examples (on a GPU machine, with the build outputs and the runtime as for the GPU tests, see the README):
#   scripts/compare-sample.sh ~/cuda-samples/Samples/0_Introduction/simpleIPC 12
#   scripts/compare-sample.sh --runs 12 --tool --java .jre --java-cds .jre --sample-one-queue
#   scripts/compare-sample.sh --runs 3 --steps 1:10000:50000 --tool --tool-args "--kernel simple"
#   scripts/compare-sample.sh --runs 3 --mps --steps 4:500:3000 --tool --tool-args "--kernel simple --sync events"
# CUDA_DEVICE_MAX_CONNECTIONS is removed from the environment of every command, as in a user's shell: the sample
# then runs as shipped, and the tool's launcher sets its own. A run that exits non-zero, or a sample run that
# reports a verification mismatch, stops the comparison (exit 1); exit 2: no nvcc (or, with --mps, no MPS) here;
# exit 64: a bad option.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

die() { echo "compare-sample: $*" >&2; exit "${2:-64}"; }

labels=() commands=() sample_envs=()
steps="" mps=0 common="" nvcc_flags="-O3 -arch=native" jar=cudaipc4j-cli/target/cudaipc4j.jar
one_queue=0 no_sample=0
positional=() positional_runs=""
while [ $# -gt 0 ]; do
  case $1 in
    --tool) labels+=(cudaipc4j); commands+=(./cudaipc4j) ;;
    --tool-args)
      [ $# -gt 1 ] || die "--tool-args needs the options to run ./cudaipc4j with"
      labels+=("cudaipc4j $2"); commands+=("./cudaipc4j $2"); shift ;;
    --runs) [ $# -gt 1 ] || die "--runs needs a number"; positional_runs=$2; shift ;;
    --java|--java-cds)
      [ $# -gt 1 ] || die "$1 needs a runtime folder"
      [ -x "$2/bin/java" ] || die "$1: no $2/bin/java"
      labels+=("${1#--}:$2"); commands+=("${1#--}:$2"); shift ;;
    --cmd)
      [ $# -gt 1 ] && [[ $2 == *=* ]] || die "--cmd takes LABEL=COMMAND"
      labels+=("${2%%=*}"); commands+=("${2#*=}"); shift ;;
    --sample-one-queue) one_queue=1 ;;
    --no-sample) no_sample=1 ;;
    --steps)
      [ $# -gt 1 ] && [[ $2 =~ ^[0-9]+:[0-9]+:[0-9]+$ ]] || die "--steps takes P:R1:R2, e.g. 2:1000:5000"
      steps=$2; shift ;;
    --mps) mps=1 ;;
    --common) [ $# -gt 1 ] || die "--common needs a folder"; common=$2; shift ;;
    --nvcc-flags) [ $# -gt 1 ] || die "--nvcc-flags needs flags"; nvcc_flags=$2; shift ;;
    --jar) [ $# -gt 1 ] || die "--jar needs a jar"; jar=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) die "unknown option $1 (see --help)" ;;
    *) positional+=("$1") ;;
  esac
  shift
done
[ ${#positional[@]} -le 2 ] || die "too many arguments: ${positional[*]} (see --help)"
[ "$no_sample" = 0 ] || { [ -z "$steps" ] && [ "$one_queue" = 0 ] && [ ${#positional[@]} -eq 0 ]; } \
  || die "--no-sample takes no SAMPLE, --steps or --sample-one-queue"
sample=${positional[0]:-}
[ -n "$sample" ] || sample=docs/harness/simpleIPC
runs=${positional[1]:-${positional_runs:-10}}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, got '$runs'"
if [ ${#commands[@]} -eq 0 ]; then labels=(cudaipc4j); commands=(./cudaipc4j); fi
if [ -n "$steps" ]; then
  IFS=: read -r procs r1 r2 <<<"$steps"
  [ "$procs" -ge 1 ] && [ "$r1" -ge 1 ] && [ "$r2" -gt "$r1" ] || die "--steps: need P >= 1 and R2 > R1 >= 1"
fi

work=$(mktemp -d)
mps_pipe="" mps_log=""
cleanup() {
  if [ -n "$mps_pipe" ]; then
    echo quit | CUDA_MPS_PIPE_DIRECTORY=$mps_pipe nvidia-cuda-mps-control >/dev/null 2>&1 || true
    # The daemon leaves once its clients are gone; wait for its pipe to go rather than a fixed time.
    for _ in $(seq 50); do [ -e "$mps_pipe/control" ] || break; sleep 0.1; done
    rm -rf "$mps_pipe" "$mps_log"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The sample: a binary as given, else built from its source with the helpers beside it or in Common/.
if [ "$no_sample" = 1 ]; then
  bin=
elif [ -f "$sample" ] && [ -x "$sample" ] && [[ $sample != *.cu ]]; then
  [ -z "$steps" ] || die "--steps needs the sample's source (the rounds patch), not a binary"
  bin=$sample
else
  if [ -d "$sample" ]; then src=$sample/simpleIPC.cu; else src=$sample; fi
  [ -f "$src" ] || die "no simpleIPC.cu at $sample"
  dir=$(cd "$(dirname "$src")" && pwd)
  if [ -z "$common" ]; then
    if [ -f "$dir/helper_cuda.h" ]; then common=$dir; else common=$dir/../../../Common; fi
  fi
  for f in helper_cuda.h helper_string.h helper_multiprocess.h helper_multiprocess.cpp; do
    [ -f "$common/$f" ] || die "no $f in $common (name the samples' Common folder with --common DIR)"
  done
  command -v "${NVCC:-nvcc}" >/dev/null || die "no nvcc here (set NVCC, or give a built simpleIPC)" 2
  cp "$src" "$work/simpleIPC.cu"
  if [ -n "$steps" ]; then
    patch -s -d "$work" -p0 <"$root/docs/harness/simpleIPC-rounds.patch" \
      || die "docs/harness/simpleIPC-rounds.patch does not apply to $src" 1
  fi
  echo "Building the sample: ${NVCC:-nvcc} $nvcc_flags -I$common $src $common/helper_multiprocess.cpp" >&2
  # shellcheck disable=SC2086
  "${NVCC:-nvcc}" $nvcc_flags -I"$common" -o "$work/simpleIPC" "$work/simpleIPC.cu" \
    "$common/helper_multiprocess.cpp" || die "the sample did not build" 1
  bin=$work/simpleIPC
fi

# Commands as run: --java and --java-cds become java command lines; the latter on a copy with its archive.
for i in "${!commands[@]}"; do
  case ${commands[$i]} in
    java:*) rt=${commands[$i]#java:}
      commands[i]="$rt/bin/java --enable-native-access=ALL-UNNAMED -jar $jar" ;;
    java-cds:*) rt=${commands[$i]#java-cds:}
      copy=$work/runtime-cds-$i
      cp -r "$rt" "$copy"
      "$copy/bin/java" -Xshare:dump >/dev/null 2>&1 || die "java -Xshare:dump failed on a copy of $rt" 1
      # -Xshare:on fails where the archive cannot be mapped, so the variant is what it claims.
      "$copy/bin/java" -Xshare:on -version >/dev/null 2>&1 || die "the CDS archive of $copy does not map" 1
      commands[i]="$copy/bin/java --enable-native-access=ALL-UNNAMED -jar $jar" ;;
  esac
done
[ -f "$jar" ] || ! printf '%s\n' "${commands[@]}" | grep -q -- "-jar $jar" || die "no $jar: build first" 1

unset CUDA_DEVICE_MAX_CONNECTIONS
if [ "$mps" = 1 ]; then
  command -v nvidia-cuda-mps-control >/dev/null || die "--mps: no nvidia-cuda-mps-control here" 2
  mps_pipe=$(mktemp -d) mps_log=$(mktemp -d)
  CUDA_MPS_PIPE_DIRECTORY=$mps_pipe CUDA_MPS_LOG_DIRECTORY=$mps_log nvidia-cuda-mps-control -d
  export CUDA_MPS_PIPE_DIRECTORY=$mps_pipe CUDA_MPS_LOG_DIRECTORY=$mps_log
fi

# All variants: the sample first (the baseline of every ratio), unless there is none.
names=("C++ sample") kinds=(sample) lines=("") baseline="the sample"
if [ "$no_sample" = 1 ]; then names=() kinds=() lines=() baseline="[0]"; fi
if [ "$one_queue" = 1 ]; then names+=("C++ sample, CUDA_DEVICE_MAX_CONNECTIONS=1"); kinds+=(sample1); lines+=(""); fi
for i in "${!commands[@]}"; do names+=("${labels[$i]}"); kinds+=(cmd); lines+=("${commands[$i]}"); done

log=$work/run.log
# Runs variant $1 with $2 rounds (empty: the plain run); sets $ms to its wall time in milliseconds.
run_one() {
  local v=$1 rounds=$2 start end pid status=0 line=${lines[$1]}
  local extra=""
  [ -n "$rounds" ] && extra=" --procs-per-device $procs --steps $rounds"
  start=$EPOCHREALTIME
  case ${kinds[$v]} in
    sample|sample1)
      if [ "${kinds[$v]}" = sample1 ]; then export CUDA_DEVICE_MAX_CONNECTIONS=1; fi
      if [ -n "$rounds" ]; then
        SIMPLEIPC_PROCS_PER_GPU=$procs SIMPLEIPC_ROUNDS=$rounds "$bin" >"$log" 2>&1 &
      else
        "$bin" >"$log" 2>&1 &
      fi
      pid=$!
      wait $pid || status=$?
      end=$EPOCHREALTIME
      unset CUDA_DEVICE_MAX_CONNECTIONS
      # The sample leaves its segment and the driver's file of its parent behind: remove this run's.
      # The driver's file names the process by its pid in hex (cuda.shm.<n>.<pid>.<m>).
      rm -f "/dev/shm/simpleIPCshm$pid" /dev/shm/cuda.shm.*."$(printf %x "$pid")".* 2>/dev/null || true
      if grep -q "Verification mismatch" "$log"; then
        echo "compare-sample: the sample reported a mismatch:" >&2; grep -m3 mismatch "$log" >&2; exit 1
      fi ;;
    cmd)
      bash -c "$line$extra" >"$log" 2>&1 || status=$?
      end=$EPOCHREALTIME ;;
  esac
  if [ "$status" != 0 ]; then
    echo "compare-sample: '${names[$v]}'${rounds:+ ($rounds rounds)} exited $status; its output ends:" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  ms=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
# The interquartile range: quartiles as Python's statistics.quantiles(n=4) gives them (its default method) for 3 or
# more values; clamped to the values' range below that, where Python extrapolates.
iqr() {
  sort -g | awk '{ v[NR] = $1 }
    function q(p,  h, i) { h = (NR + 1) * p; i = int(h); if (i < 1) return v[1]; if (i >= NR) return v[NR]
      return v[i] + (h - i) * (v[i + 1] - v[i]) }
    END { if (NR < 2) printf "%s-%s", v[1], v[1]; else printf "%.1f-%.1f", q(0.25), q(0.75) }'
}

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)
echo "$(date -u +%FT%TZ) $(hostname); GPU ${gpu:-unknown (no nvidia-smi)}; MPS $([ "$mps" = 1 ] && echo on || echo off);" \
  "CUDA_DEVICE_MAX_CONNECTIONS unset"
for v in "${!names[@]}"; do echo "  [$v] ${names[$v]}${lines[$v]:+: ${lines[$v]}}"; done

declare -A samples
if [ -z "$steps" ]; then
  echo "Warm-up: one run of each"
  for v in "${!names[@]}"; do run_one "$v" ""; done
  for r in $(seq "$runs"); do
    row="run $r:"
    for v in "${!names[@]}"; do
      run_one "$v" ""
      samples[$v]+="$ms "
      row+="  [$v] $ms ms"
    done
    echo "$row"
  done
  unit=ms what="end to end"
else
  echo "Warm-up: one run of each ($r1 rounds)"
  for v in "${!names[@]}"; do run_one "$v" "$r1"; done
  for r in $(seq "$runs"); do
    row="pair $r ($procs processes, $r1 and $r2 rounds), us per step:"
    for v in "${!names[@]}"; do
      run_one "$v" "$r1"; short=$ms
      run_one "$v" "$r2"; long=$ms
      us=$(awk -v s="$short" -v l="$long" -v d="$(( (r2 - r1) * procs ))" 'BEGIN { printf "%.2f", (l - s) * 1000 / d }')
      samples[$v]+="$us "
      row+="  [$v] $us ($short / $long ms)"
    done
    echo "$row"
  done
  unit=us what="per step, marginal ($procs processes)"
fi

echo "Medians of $runs, $what:"
base=$(tr ' ' '\n' <<<"${samples[0]}" | grep . | median)
for v in "${!names[@]}"; do
  m=$(tr ' ' '\n' <<<"${samples[$v]}" | grep . | median)
  span=$(tr ' ' '\n' <<<"${samples[$v]}" | grep . | range)
  quartiles=$(tr ' ' '\n' <<<"${samples[$v]}" | grep . | iqr)
  ratio=$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.2fx", m / b }')
  printf '  %-60s %10s %s (IQR %s, range %s)  %s %s\n' "[$v] ${names[$v]}" "$m" "$unit" "$quartiles" "$span" "$ratio" \
    "$baseline"
done
