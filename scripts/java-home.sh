# Sourced by ./cudaipc4j and scripts/mvn.sh: finds a Java 25+ home without starting a JVM.
# find_java_home prints JAVA_HOME when it is a Java 25+ home, else the newest 25+ JDK under the usual folders.

# Major version of a JDK/JRE home, read from its release file.
java_major() {
  local v
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null || true)
  echo "${v:-0}"
}

find_java_home() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME")" -ge 25 ]; then
    echo "$JAVA_HOME"; return 0
  fi
  local best="" best_v=0 d v
  for d in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
           "$HOME"/.jdks/*; do
    [ -x "$d/bin/java" ] || continue
    v=$(java_major "$d")
    if [ "$v" -ge 25 ] && [ "$v" -gt "$best_v" ]; then best=$d; best_v=$v; fi
  done
  [ -n "$best" ] && { echo "$best"; return 0; }
  return 1
}
