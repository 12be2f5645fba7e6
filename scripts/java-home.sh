# Sourced by ./cudaipc4j and scripts/mvn.sh: finds a Java 25+ home without starting a JVM.
# find_java_home prints JAVA_HOME when it is a Java 25+ home, else the newest 25+ JDK under the usual folders.

# Major version of a JDK/JRE home, read from its release file (with shell built-ins only: the tool's launcher
# runs this on every start).
java_major() {
  local line
  if [ -r "$1/release" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      if [[ $line =~ ^JAVA_VERSION=\"([0-9]+) ]]; then
        echo "${BASH_REMATCH[1]}"; return 0
      fi
    done < "$1/release"
  fi
  echo 0
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
