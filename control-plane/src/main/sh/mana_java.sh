# Sourced by the mana_* Java launchers: finds java and the jars.
# java: $JAVA_HOME/bin/java when JAVA_HOME is set, else `java` from PATH (17 or newer).
self=$(readlink -f "$0")
MANA_ROOT=$(cd "$(dirname "$self")/.." && pwd)
MANA_LIB="$MANA_ROOT/lib/java"
if [ -n "$JAVA_HOME" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  MANA_JAVA="$JAVA_HOME/bin/java"
else
  MANA_JAVA=java
fi
if ! command -v "$MANA_JAVA" >/dev/null 2>&1; then
  echo "$(basename "$0"): java not found (install a JDK 17 or newer, or set JAVA_HOME)" >&2
  exit 127
fi
MANA_CP="$MANA_LIB/control-plane.jar:$MANA_LIB/picocli.jar:$MANA_LIB/gson.jar"
# short-lived commands: start fast (C1 only, class data sharing, small serial heap)
MANA_QUICK_OPTS="-XX:TieredStopAtLevel=1 -Xshare:auto -XX:+UseSerialGC -XX:-UsePerfData"
# the long-running coordinator: full JIT, small footprint
# (-Xms16m: the young generation starts small, so RSS follows the live data: ~70 MiB at 4,096 ranks)
MANA_SERVER_OPTS="-XX:+UseSerialGC -Xms16m -Xmx1g -Xss512k -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData"
