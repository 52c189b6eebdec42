#!/usr/bin/env bash
# Coordinator under attack (make bench-attack): 1,000 hostile connections (each announces a 1 MiB frame
# and sends 4 KiB of it) and 20,000 idle ones, opened at once against bin/mana_coordinator in its own
# JVM with the daemon's options, while an authenticated client asks STATUS every 5 ms.  The client side
# needs more than 21,000 descriptors: the soft and hard limits are raised (root may raise the hard one).
# BENCH_IDLE / BENCH_HOSTILE change the counts.  The idle crowd connects from 127.0.0.2 and the hostile
# connections from 127.0.0.3 (BENCH_IDLE_SOURCE / BENCH_HOSTILE_SOURCE), the probes from 127.0.0.1: handshake
# slots are shared out over the addresses in turn, and a fresh client from the crowd's own address waits
# behind the crowd's queue (protocol §2, backpressure).  Table, then one JSON line (control-plane/bench/AttackBench.java).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$ROOT/bin/mana_coordinator" ] || { echo "bench_attack: run make build first" >&2; exit 1; }
IDLE=${BENCH_IDLE:-20000} HOSTILE=${BENCH_HOSTILE:-1000}
# the idle crowd is held by child processes of 8,000 connections each
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -Sn)" = unlimited ] || [ "$(ulimit -Sn)" -ge 10000 ] ||
    { echo "bench_attack: needs a descriptor limit of 10,000 (hard limit $(ulimit -Hn))" >&2; exit 1; }
WORK=$(mktemp -d /tmp/mana-bench-attack.XXXXXX)
COORD=
cleanup() { [ -n "$COORD" ] && kill "$COORD" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET
# the daemon's own descriptor limit stays the default one: what it holds is the point
(ulimit -Sn 1024; exec "$ROOT/bin/mana_coordinator" --foreground -q -p 0 --bind 127.0.0.1 --no-exit-on-last \
    --status-file "$WORK/rc") > "$WORK/coord.log" 2>&1 &
COORD=$!
for _ in $(seq 300); do grep -q '^Secret:' "$WORK/rc" 2>/dev/null && break; sleep 0.05; done
grep -q '^Secret:' "$WORK/rc" || { cat "$WORK/coord.log"; echo "bench_attack: coordinator did not start" >&2; exit 1; }
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA=$JAVA_HOME/bin/java; else JAVA=java; fi
SRC=$ROOT/control-plane/bench/AttackBench.java
"$JAVA" -Dattack.source="$SRC" -Dattack.idleSource="${BENCH_IDLE_SOURCE:-127.0.0.2}" \
    -Dattack.hostileSource="${BENCH_HOSTILE_SOURCE:-127.0.0.3}" -cp "$ROOT/lib/java/*" "$SRC" "$WORK/rc" "$COORD" "$IDLE" "$HOSTILE"
