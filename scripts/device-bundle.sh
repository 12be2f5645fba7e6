#!/usr/bin/env bash
# Gathers what the GPU scripts need from a build (each module's classes and test classes, the tool's runnable jar
# and dependency jars) into one folder that can travel to a GPU machine without Maven, where
# `cp -r BUNDLE/. .` puts it back in place. Build first: scripts/mvn.sh -q -B package -DskipTests
# Usage: scripts/device-bundle.sh [BUNDLE]   (default .device-bundle; keep it out of git)
set -euo pipefail
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
