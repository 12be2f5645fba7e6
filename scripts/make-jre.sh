#!/usr/bin/env bash
# Makes a small Java 25 runtime (jlink) from the JDK found as ./cudaipc4j finds one, to take to a machine without
# Java, such as a GPU machine (with the build outputs, see the README). It holds the modules the tool and the GPU
# tests need; it has no default CDS archive (JDK installs have one: scripts/compare-sample.sh --java-cds adds it
# on the machine that runs it) and no java.desktop (bench then writes its JSON without charts; draw them with
# `cudaipc4j bench chart` on a full JDK, or add the module).
# Usage: scripts/make-jre.sh [OUTPUT_DIR] [EXTRA_MODULES]
#   OUTPUT_DIR     default .jre (ignored by git)
#   EXTRA_MODULES  comma-separated modules beyond the default set, e.g. java.desktop
# There: JAVA_HOME=$PWD/.jre ./cudaipc4j ... (a jlinked runtime has the release file the launcher reads), or
# .jre/bin/java --enable-native-access=ALL-UNNAMED -jar cudaipc4j-cli/target/cudaipc4j.jar ...
set -euo pipefail
# Help, and a first argument that is an option (where a path goes) refused, before anything runs.
case "${1:-}" in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "make-jre: usage: scripts/make-jre.sh [OUT] (see scripts/make-jre.sh --help); got $1" >&2; exit 64 ;;
esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/java-home.sh"
out=${1:-.jre}
extra=${2:-}
if ! find_java_home || [ ! -x "$java_home/bin/jlink" ]; then
  echo "make-jre: needs a JDK 25 or newer with jlink: set JAVA_HOME to one" >&2
  exit 1
fi
mods=java.base,java.logging,java.management,jdk.unsupported
[ -n "$extra" ] && mods="$mods,$extra"
# The same JDK and modules as last time: nothing to do (the jlink takes a while).
stamp="$java_home|$mods"
if [ -x "$out/bin/java" ] && [ "$(cat "$out/.made-from" 2>/dev/null)" = "$stamp" ]; then
  echo "$out is up to date ($mods from $java_home)"; exit 0
fi
rm -rf "$out"
"$java_home/bin/jlink" --add-modules "$mods" --strip-debug --no-header-files --no-man-pages \
  --compress=zip-6 --output "$out"
echo "$stamp" > "$out/.made-from"
du -sh "$out"
