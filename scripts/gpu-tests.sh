#!/usr/bin/env bash
# Runs the GPU-tagged JUnit tests without Maven (a GPU machine may have only a Java runtime), through the JUnit
# console launcher. Build first: mvn -q -B package -DskipTests (jar, test classes, and every jar in target/lib).
# Usage: scripts/gpu-tests.sh [JAVA]   (JAVA defaults to .jre/bin/java, else $JAVA_HOME/bin/java)
set -euo pipefail
cd "$(dirname "$0")/.."
java=${1:-}
[ -n "$java" ] || { [ -x .jre/bin/java ] && java=.jre/bin/java || java=$JAVA_HOME/bin/java; }
cp="target/test-classes:target/classes:$(ls target/lib/*.jar | tr '\n' :)"
exec "$java" --enable-native-access=ALL-UNNAMED \
  -jar target/lib/junit-platform-console-standalone-1.14.4.jar execute \
  --disable-banner --disable-ansi-colors --details=tree \
  --class-path "$cp" --scan-class-path target/test-classes --include-tag gpu
