#!/usr/bin/env bash
# Compiles CUDA C to the PTX that cudaipc4j ships, for drivers as old as the kernels allow.
#
# nvcc writes the PTX ISA version of its own release (9.0 for CUDA 13), which drivers older than that release
# refuse to load. The code generated for the virtual architecture compute_75 needs no newer ISA than the one that
# introduced the sm_75 target (6.3, CUDA 10.0), so the version line is set to that, and ptxas then assembles the
# result for sm_75: it fails if any instruction needs a newer ISA. Any driver from CUDA 10.0 on can load the result,
# CUDA 12.x and 13.x included, and JIT-compiles it for GPUs of compute capability 7.5 or newer.
#
# Usage: scripts/build-ptx.sh SOURCE.cu OUTPUT.ptx
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 SOURCE.cu OUTPUT.ptx" >&2; exit 64; }
src=$1 out=$2
PTX_ISA=6.3
ARCH=75
nvcc=${NVCC:-nvcc}
ptxas=${PTXAS:-$(dirname "$(command -v "$nvcc")")/ptxas}
[ -x "$ptxas" ] || ptxas=ptxas
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$nvcc" -ptx -arch=compute_$ARCH -o "$tmp" "$src"
sed -E "s/^\.version [0-9]+\.[0-9]+$/.version $PTX_ISA/" "$tmp" > "$out"
grep -qx "\.version $PTX_ISA" "$out" || { echo "$0: no .version line in nvcc's output" >&2; exit 1; }
"$ptxas" -arch=sm_$ARCH -o /dev/null "$out"
