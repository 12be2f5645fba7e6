#!/usr/bin/env bash
# Compiles kernels.cu to the PTX that cudaipc4j ships. A low virtual architecture (compute_75) lets the driver
# JIT it for any GPU of compute capability 7.5 or newer.
# Usage: bash src/main/cuda/build-ptx.sh [OUTPUT_FILE]   (default: the shipped resource)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../resources/org/cudaipc4j/kernels/kernels.ptx}
nvcc=${NVCC:-nvcc}
"$nvcc" -ptx -arch=compute_75 -o "$out" "$here/kernels.cu"
