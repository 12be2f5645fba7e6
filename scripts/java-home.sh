# Sourced by ./cudaipc4j and scripts/mvn.sh: finds a Java 25+ home without starting a JVM, with shell built-ins only
# and no subshell (the tool's launcher runs this on every start, before the JVM).
# find_java_home sets java_home to JAVA_HOME when it is a Java 25+ home, else to the newest 25+ JDK under the usual
# folders, and fails when there is none.

# Sets java_major to the major version of a JDK/JRE home, read from its release file (0 when unknown).
read_java_major() {
  local line
  java_major=0
  if [ -r "$1/release" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      if [[ $line =~ ^JAVA_VERSION=\"([0-9]+) ]]; then
        java_major=${BASH_REMATCH[1]}; return 0
      fi
    done < "$1/release"
  fi
}

find_java_home() {
  java_home=""
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    read_java_major "$JAVA_HOME"
    if [ "$java_major" -ge 25 ]; then java_home=$JAVA_HOME; return 0; fi
  fi
  local best_v=0 d
  for d in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk* "${HOME:-/nonexistent}"/.sdkman/candidates/java/* \
           "${HOME:-/nonexistent}"/.jdks/*; do
    [ -x "$d/bin/java" ] || continue
    read_java_major "$d"
    if [ "$java_major" -ge 25 ] && [ "$java_major" -gt "$best_v" ]; then java_home=$d; best_v=$java_major; fi
  done
  [ -n "$java_home" ]
}
