#!/usr/bin/env bash
# Builds and runs consumer/, a user's Maven project outside the build, against the interop library just built (run
# after the Maven build: scripts/test.sh does). The libraries it needs are installed, as `mvn install` lays them out,
# into a throwaway local repository, target/consumer-repository; everything else (Maven's plugins, Gson) is read from
# the user's Maven repository through a file mirror, so it reaches no network and writes nothing there. Arguments
# are the Maven build's: a -Dmaven.repo.local among them (or in MAVEN_OPTS) names the user's repository.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
me=consumer.sh
start=$SECONDS
. scripts/java-home.sh
find_java_home || { echo "$me: needs a JDK 25 or newer" >&2; exit 1; }

version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
# Maven's default: .m2/repository in the home the system names, not $HOME
user_repo=$(getent passwd "$(id -u)" | cut -d: -f6)/.m2/repository
for arg in ${MAVEN_OPTS:-} "$@"; do
  case $arg in -Dmaven.repo.local=*) user_repo=${arg#-Dmaven.repo.local=} ;; esac
done
if [ ! -d "$user_repo" ]; then
  echo "$me: no Maven repository at $user_repo (build first, or pass -Dmaven.repo.local)" >&2
  exit 1
fi
user_repo=$(cd "$user_repo" && pwd)

repo=$root/target/consumer-repository
rm -rf "$repo" consumer/target
# The interop library and the modules it depends on, with the parent pom they name.
install_module() { # MODULE
  local dir=$repo/org/cudaipc4j/$1/$version
  mkdir -p "$dir"
  if [ "$1" = cudaipc4j-parent ]; then
    cp pom.xml "$dir/$1-$version.pom"
  else
    [ -f "$1/target/$1-$version.jar" ] || { echo "$me: $1/target/$1-$version.jar is missing: build first" >&2; exit 1; }
    cp "$1/pom.xml" "$dir/$1-$version.pom"
    cp "$1/target/$1-$version.jar" "$dir/"
  fi
}
for module in cudaipc4j-parent cudaipc4j-base cudaipc4j-cuda cudaipc4j-coord cudaipc4j-interop; do
  install_module "$module"
done

settings=$root/target/consumer-settings.xml
cat >"$settings" <<XML
<settings>
  <mirrors>
    <mirror><id>user-repository</id><mirrorOf>*</mirrorOf><url>file://$user_repo</url></mirror>
  </mirrors>
</settings>
XML
lib=consumer/target/lib
scripts/mvn.sh -B -q -s "$settings" -Dmaven.repo.local="$repo" -f consumer/pom.xml -Dcudaipc4j.version="$version" \
  compile dependency:copy-dependencies -DoutputDirectory="$root/$lib" -DincludeScope=runtime

golden=interop-golden/java/legacy.json
expected="legacy 33554437 GPU-01234567-89ab-cdef-0123-456789abcdef"
got=$("$java_home/bin/java" --enable-native-access=org.cudaipc4j.base,org.cudaipc4j.cuda,org.cudaipc4j.coord \
  --module-path "consumer/target/classes:$lib" -m example.consumer/example.consumer.ReadDescriptor "$golden")
if [ "$got" != "$expected" ]; then
  echo "$me: consumer/ read $golden as '$got', expected '$expected'" >&2
  exit 1
fi
echo "$me: consumer/ (module path, org.cudaipc4j:cudaipc4j-interop:$version from a throwaway repository) read" \
  "$golden: $got ($((SECONDS - start)) s)"
