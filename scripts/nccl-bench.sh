#!/usr/bin/env bash
# NCCL send/recv and all-reduce: the Java ranks (NcclBench; non-blocking communicators, and blocking ones as torch's
# are for send/recv) against torch.distributed, in the same configuration,
# with the same NCCL library file (torch's), interleaved in PAIRS rounds; prints every figure as a JSON line and a
# table of medians (over the rounds' medians) with Java/torch ratios. Every rank is a host of its own to NCCL
# (NCCL_HOSTID, sockets over loopback), so on one GPU this measures NCCL's network path over loopback sockets.
# Build first (scripts/mvn.sh -q -B package -DskipTests); needs python3 with torch.
# Usage: scripts/nccl-bench.sh [JAVA] [PAIRS] [OUT.jsonl] [PARTS]
#   defaults: .jre/bin/java, 3, nccl-bench.jsonl, all parts; PARTS is a comma-separated subset of
#   sendrecv-4k, sendrecv, allreduce-2, allreduce-4, blocking (SIZES overrides the all-reduce sizes, default 64M,1G)
set -euo pipefail
# Help, and a first argument that is an option (where a path goes) refused, before anything runs.
case "${1:-}" in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "nccl-bench: usage: scripts/nccl-bench.sh [JAVA] (see scripts/nccl-bench.sh --help); got $1" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/.."
java=${1:-.jre/bin/java}
pairs=${2:-3}
out=${3:-nccl-bench.jsonl}
parts=",${4:-sendrecv-4k,sendrecv,allreduce-2,allreduce-4,blocking},"
sizes=${SIZES:-64M,1G}
want() { [[ $parts == *",$1,"* ]]; }
lib=$(PYTHONPATH=python python3 -c 'from cudaipc4j import nccl; print(nccl.default_library({}))')
cp="$(ls cudaipc4j-*/target/classes -d | tr '\n' :)$(ls cudaipc4j-cli/target/lib/*.jar | tr '\n' :)"
: > "$out"

# ranks IMPL OP SIZES OPS REPEATS NRANKS: one run of NRANKS processes, torchrun-style.
ranks() {
  local impl=$1 op=$2 sizes=$3 ops=$4 repeats=$5 n=$6 port rdzv pids=() r rc=0
  read -r port rdzv < <(python3 -c 'import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
  for ((r = 0; r < n; r++)); do
    local env=(RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port
      CUDAIPC4J_RENDEZVOUS=127.0.0.1:$rdzv
      NCCL_HOSTID=bench-host-$r NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1
      CUDAIPC4J_NCCL_LIBRARY=$lib)
    if [ "$impl" = java ] || [ "$impl" = java-blocking ]; then
      env "${env[@]}" "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" org.cudaipc4j.bench.NcclBench \
        "$op" "$sizes" "$ops" "$repeats" "${impl#java-}" >> "$out" &
    else
      env "${env[@]}" python3 scripts/nccl_bench_torch.py "$op" "$sizes" "$ops" "$repeats" >> "$out" &
    fi
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

for ((i = 1; i <= pairs; i++)); do
  for impl in java torch; do
    if want sendrecv-4k; then ranks "$impl" sendrecv 4K 200 5 2; fi
    if want sendrecv; then ranks "$impl" sendrecv 64M,1G 5 3 2; fi
    if want allreduce-2; then ranks "$impl" allreduce "$sizes" 3 3 2; fi
    if want allreduce-4; then ranks "$impl" allreduce "$sizes" 3 3 4; fi
  done
  # torch's communicators are blocking: the same configuration
  if want blocking; then ranks java-blocking sendrecv 4K,64M 200 5 2; fi
done

python3 - "$out" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
groups = collections.defaultdict(list)
for r in rows:
    groups[(r["op"], r["ranks"], r["bytes"], r["impl"])].append(r)
print(f"NCCL: java {sorted({r['nccl'] for r in rows if r['impl']=='java'})}, torch {sorted({r['nccl'] for r in rows if r['impl']=='torch'})}")
print(f"{'op':10} {'ranks':>5} {'bytes':>11} {'java us':>10} {'torch us':>10} {'java GB/s':>10} {'torch GB/s':>10} {'java/torch time':>16}")
for (op, n, b) in sorted({k[:3] for k in groups}):
    j, t = groups.get((op, n, b, "java"), []), groups.get((op, n, b, "torch"), [])
    if not j or not t:
        continue
    ju, tu = statistics.median(r["us"] for r in j), statistics.median(r["us"] for r in t)
    key = "busGBps" if op == "allreduce" else "algGBps"
    jb, tb = statistics.median(r[key] for r in j), statistics.median(r[key] for r in t)
    print(f"{op:10} {n:>5} {b:>11} {ju:>10.1f} {tu:>10.1f} {jb:>10.3f} {tb:>10.3f} {ju / tu:>16.3f}")
    print(f"{'':10} {'':5} {'':11} runs' {key}: java {sorted(r[key] for r in j)}, torch {sorted(r[key] for r in t)}")
    jbk = groups.get((op, n, b, "java-blocking"), [])
    if jbk:
        bu, bb = statistics.median(r["us"] for r in jbk), statistics.median(r[key] for r in jbk)
        print(f"{op + ' (java blocking)':24} {b:>11} {bu:>10.1f} {tu:>10.1f} {bb:>10.3f} {tb:>10.3f} {bu / tu:>16.3f}")
PY
