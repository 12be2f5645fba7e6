#!/usr/bin/env bash
# Gathers what the GPU scripts need from a build (each module's classes and test classes, the tool's runnable jar
# and dependency jars) into one folder that can travel to a GPU machine without Maven, where
# `cp -r BUNDLE/. .` puts it back in place. Build first: scripts/mvn.sh -q -B package -DskipTests
# Usage: scripts/device-bundle.sh [BUNDLE]   (default .device-bundle; keep it out of git)
set -euo pipefail
# Help, and a first argument that is an option (where a path goes) refused, before anything runs.
case "${1:-}" in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "device-bundle: usage: scripts/device-bundle.sh [OUT] (see scripts/device-bundle.sh --help); got $1" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/.."
out=${1:-.device-bundle}
rm -rf "$out"
for m in cudaipc4j-*/; do
  m=${m%/}
  for d in classes test-classes; do
    [ -d "$m/target/$d" ] && mkdir -p "$out/$m/target" && cp -r "$m/target/$d" "$out/$m/target/"
  done
done
cp -r cudaipc4j-cli/target/lib "$out/cudaipc4j-cli/target/"
cp cudaipc4j-cli/target/cudaipc4j.jar "$out/cudaipc4j-cli/target/"
du -sh "$out"
