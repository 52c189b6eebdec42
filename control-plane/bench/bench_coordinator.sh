#!/usr/bin/env bash
# Coordinator benchmark (make bench-coordinator).
# Barrier and sum-reduction (8 int64 values) round trips with 16, 256 and 4,096 simulated ranks,
# spread over 2, 4 and 4 client processes (one TCP connection per rank, as real ranks have).
# One round trip = from the first rank entering the collective to the last rank leaving it, over
# all processes. Coordinator memory = its peak resident set (VmHWM) after the 4,096-rank run.
# Also: a whole checkpoint of 256 simulated ranks, request to commit (median of 10).
# The coordinator and clients start under a soft fd limit of 1024: the JVM raises it itself.
# Prints a table, then ONE JSON object as the last line.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$ROOT/bin
LIB=$ROOT/lib/java
[ -x "$BIN/mana_coordinator" ] && [ -x "$BIN/mana_simrank" ] || { echo "bench_coordinator: run make build first" >&2; exit 1; }
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA=$JAVA_HOME/bin/java; else JAVA=java; fi

WORK=$(mktemp -d /tmp/mana-bench-coord.XXXXXX)
COORD_PID=
cleanup() {
  [ -n "$COORD_PID" ] && kill "$COORD_PID" 2>/dev/null || true
  jobs -p | xargs -r kill 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

RC=$WORK/coord.rc
export MANA_RC=$RC
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET DMTCP_COORD_HOST DMTCP_COORD_PORT
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 8192 ]; then ulimit -Sn 1024; fi
FD_START=$(ulimit -Sn)
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)

"$BIN/mana_coordinator" --foreground --no-exit-on-last -q -p 0 --status-file "$RC" >"$WORK/coord.log" 2>&1 &
COORD_PID=$!
for _ in $(seq 300); do [ -s "$RC" ] && break; sleep 0.05; done
[ -s "$RC" ] || { echo "bench_coordinator: coordinator did not start:" >&2; cat "$WORK/coord.log" >&2; exit 1; }
FD_SOFT=$(awk '/Max open files/ {print $4}' "/proc/$COORD_PID/limits")

# ranks  processes  iterations
CONFIGS=("16 2 2000" "256 4 600" "4096 4 150")
declare -A MED P99
for cfg in "${CONFIGS[@]}"; do
  read -r N P ITER <<<"$cfg"
  per=$((N / P))
  pids=()
  for ((p = 0; p < P; p++)); do
    "$BIN/mana_simrank" -j "bench$N" -n "$per" --first $((p * per)) --nranks "$N" \
        --bench "$ITER" --bench-out "$WORK/t$N.$p" >"$WORK/sim$N.$p.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    if ! wait "$pid"; then echo "bench_coordinator: a client failed ($N ranks):" >&2; cat "$WORK"/sim$N.*.log >&2; exit 1; fi
  done
  warm=$((ITER / 10))
  for kind in barrier sum; do
    read -r med p99 _ < <("$JAVA" -XX:TieredStopAtLevel=1 -cp "$LIB/control-plane.jar" dev.mana.coordinator.cli.BenchReport \
        "$warm" "$WORK"/t$N.*.$kind)
    MED[$N.$kind]=$med
    P99[$N.$kind]=$p99
  done
  if [ "$N" = 4096 ]; then
    RSS_KB=$(awk '/VmHWM/ {print $2}' "/proc/$COORD_PID/status")
  fi
done
# a whole checkpoint (5 collectives: SUSPENDED, a drain round, DRAINED, CHECKPOINTED, COMMITTED) of 256
# ranks that report images without writing files: the coordinator's request-to-commit time
pids=()
for ((p = 0; p < 2; p++)); do
  "$BIN/mana_simrank" -j ckpt -n 128 --first $((p * 128)) --nranks 256 >"$WORK/ck.$p.log" 2>&1 &
  pids+=($!)
done
for _ in $(seq 600); do
  "$BIN/mana_status" -j ckpt --status --json 2>/dev/null | grep -q '"connected":256,' && break
  sleep 0.1
done
CKPT_MS=()
for i in $(seq 11); do
  out=$("$BIN/mana_status" -j ckpt --checkpoint --json) || { echo "bench_coordinator: checkpoint failed: $out" >&2; exit 1; }
  [ "$i" = 1 ] && continue   # warm-up
  CKPT_MS+=("$(sed -n 's/.*"seconds":\([0-9.eE-]*\).*/\1/p' <<<"$out" | awk '{printf "%.3f", $1 * 1000}')")
done
"$BIN/mana_status" -j ckpt --kill >/dev/null
wait "${pids[@]}" 2>/dev/null || true
CKPT_MED=$(printf '%s\n' "${CKPT_MS[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')

kill "$COORD_PID" 2>/dev/null || true
wait "$COORD_PID" 2>/dev/null || true
COORD_PID=

RSS_MB=$(awk -v k="$RSS_KB" 'BEGIN {printf "%.1f", k / 1024}')
echo "Coordinator round trips in ms (first rank in -> last rank out), $(nproc) cores, load average $LOAD_BEFORE before / $(cut -d' ' -f1 /proc/loadavg) after"
echo "fd soft limit: $FD_START at start, $FD_SOFT in the coordinator JVM (HotSpot raises it to the hard limit)"
printf '%-7s %-10s %-9s %10s %10s\n' ranks processes op median p99
for cfg in "${CONFIGS[@]}"; do
  read -r N P ITER <<<"$cfg"
  printf '%-7s %-10s %-9s %10s %10s\n' "$N" "$P" barrier "${MED[$N.barrier]}" "${P99[$N.barrier]}"
  printf '%-7s %-10s %-9s %10s %10s\n' "$N" "$P" "sum(8)" "${MED[$N.sum]}" "${P99[$N.sum]}"
done
echo "whole checkpoint of 256 simulated ranks (request to commit, median of 10): $CKPT_MED ms"
echo "coordinator peak RSS with 4096 ranks connected: $RSS_MB MiB"
printf '{"barrier_ms_16": %s, "barrier_ms_256": %s, "barrier_ms_4096": %s, "reduce_ms_4096": %s, "barrier_p99_ms_4096": %s, "reduce_p99_ms_4096": %s, "checkpoint_ms_256": %s, "rss_mb_4096": %s}\n' \
  "${MED[16.barrier]}" "${MED[256.barrier]}" "${MED[4096.barrier]}" "${MED[4096.sum]}" "${P99[4096.barrier]}" "${P99[4096.sum]}" "$CKPT_MED" "$RSS_MB"
