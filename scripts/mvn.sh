#!/usr/bin/env bash
# Runs Maven on a JDK 25, found as ./cudaipc4j finds one (JAVA_HOME when it is 25+, else /usr/lib/jvm and the
# usual folders), so the build needs no machine-specific path. Arguments go to Maven: scripts/mvn.sh -B verify
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/java-home.sh"
if ! find_java_home; then
  echo "mvn.sh: needs a JDK 25 or newer: set JAVA_HOME to one (none found in JAVA_HOME or /usr/lib/jvm)" >&2
  exit 1
fi
export JAVA_HOME=$java_home
# Maven 3.8 runs on this JDK too; its own libraries would print warnings about sun.misc.Unsafe.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
# Output that is not a terminal gets no escape codes: -B turns Maven's colours off, but its console library still
# writes a reset code on its way out.
[ -t 1 ] || MAVEN_OPTS="$MAVEN_OPTS -Djansi.noreset=true"
command -v mvn >/dev/null 2>&1 || { echo "mvn.sh: Maven (mvn) is not installed" >&2; exit 1; }
cd "$root"
exec mvn "$@"
