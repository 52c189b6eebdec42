#!/usr/bin/env bash
# Coordinator benchmark (make bench-coordinator).
# Barrier and sum-reduction (8 int64 values) round trips with 16, 256 and 4,096 simulated ranks,
# spread over 2, 4 and 4 client processes, in two layouts, each against a fresh coordinator:
#   groups:   rank-group connections (HELLO role 3) of 8 / 64 / 64 ranks, as a node agent or a
#             launcher hosting several ranks would connect; the client pre-reduces its members'
#             contributions and sends one GROUP_COLLECTIVE per collective (protocol §4.8);
#   per-rank: one TCP connection per rank, as the native runtime's ranks have today.
# One round trip = from the first rank entering the collective to the last rank leaving it, over
# all processes. Coordinator memory = its peak resident set (VmHWM) after the 4,096-rank run.
# Also: a whole checkpoint of 256 simulated ranks, request to commit (median of 10), in each layout.
# The coordinator and clients start under a soft fd limit of 1024: the JVM raises it itself.
# Prints a table, then ONE JSON object as the last line: the required keys (barrier_ms_16,
# barrier_ms_4096, reduce_ms_4096, rss_mb_4096) are the groups layout; the same keys with the suffix
# _per_rank_conn are the per-rank layout.
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

start_coordinator() {
  rm -f "$RC"
  "$BIN/mana_coordinator" --foreground --no-exit-on-last -q -p 0 --status-file "$RC" >"$WORK/coord.log" 2>&1 &
  COORD_PID=$!
  for _ in $(seq 300); do [ -s "$RC" ] && break; sleep 0.05; done
  [ -s "$RC" ] || { echo "bench_coordinator: coordinator did not start:" >&2; cat "$WORK/coord.log" >&2; exit 1; }
  FD_SOFT=$(awk '/Max open files/ {print $4}' "/proc/$COORD_PID/limits")
}
stop_coordinator() {
  kill "$COORD_PID" 2>/dev/null || true
  wait "$COORD_PID" 2>/dev/null || true
  COORD_PID=
}

declare -A MED P99 CKPT RSS
# layout  ranks  processes  iterations  group size (0 = one connection per rank)
CONFIGS=("groups 16 2 2000 8" "groups 256 4 600 64" "groups 4096 4 600 64"
         "per-rank 16 2 2000 0" "per-rank 256 4 600 0" "per-rank 4096 4 150 0")

run_collectives() { # LAYOUT N P ITER G
  local L=$1 N=$2 P=$3 ITER=$4 G=$5 per=$(($2 / $3)) p pid kind med p99 warm
  local pids=()
  for ((p = 0; p < P; p++)); do
    "$BIN/mana_simrank" -j "bench$N" -n "$per" --first $((p * per)) --nranks "$N" --group-size "$G" \
        --bench "$ITER" --bench-out "$WORK/t$L$N.$p" >"$WORK/sim$L$N.$p.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    if ! wait "$pid"; then echo "bench_coordinator: a client failed ($N ranks, $L):" >&2; cat "$WORK"/sim$L$N.*.log >&2; exit 1; fi
  done
  warm=$((ITER / 10))
  for kind in barrier sum; do
    read -r med p99 _ < <("$JAVA" -XX:TieredStopAtLevel=1 -cp "$LIB/control-plane.jar" dev.mana.coordinator.cli.BenchReport \
        "$warm" "$WORK"/t$L$N.*.$kind)
    MED[$L.$N.$kind]=$med
    P99[$L.$N.$kind]=$p99
  done
  if [ "$N" = 4096 ]; then
    RSS[$L]=$(awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$COORD_PID/status")
  fi
}

# a whole checkpoint (5 collectives: SUSPENDED, a drain round, DRAINED, CHECKPOINTED, COMMITTED) of 256
# ranks that report images without writing files: the coordinator's request-to-commit time
run_checkpoint() { # LAYOUT G
  local L=$1 G=$2 p i out
  local pids=() ms=()
  for ((p = 0; p < 2; p++)); do
    "$BIN/mana_simrank" -j ckpt -n 128 --first $((p * 128)) --nranks 256 --group-size "$G" >"$WORK/ck$L.$p.log" 2>&1 &
    pids+=($!)
  done
  for _ in $(seq 600); do
    "$BIN/mana_status" -j ckpt --status --json 2>/dev/null | grep -q '"connected":256,' && break
    sleep 0.1
  done
  for i in $(seq 11); do
    out=$("$BIN/mana_status" -j ckpt --checkpoint --json) || { echo "bench_coordinator: checkpoint failed ($L): $out" >&2; exit 1; }
    [ "$i" = 1 ] && continue   # warm-up
    ms+=("$(sed -n 's/.*"seconds":\([0-9.eE-]*\).*/\1/p' <<<"$out" | awk '{printf "%.3f", $1 * 1000}')")
  done
  "$BIN/mana_status" -j ckpt --kill >/dev/null
  wait "${pids[@]}" 2>/dev/null || true
  CKPT[$L]=$(printf '%s\n' "${ms[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
}

for layout in groups per-rank; do
  start_coordinator
  for cfg in "${CONFIGS[@]}"; do
    read -r L N P ITER G <<<"$cfg"
    if [ "$L" = "$layout" ]; then run_collectives "$L" "$N" "$P" "$ITER" "$G"; fi
  done
  if [ "$layout" = groups ]; then run_checkpoint groups 64; else run_checkpoint per-rank 0; fi
  stop_coordinator
done

echo "Coordinator round trips in ms (first rank in -> last rank out), $(nproc) cores, load average $LOAD_BEFORE before / $(cut -d' ' -f1 /proc/loadavg) after"
echo "fd soft limit: $FD_START at start, $FD_SOFT in the coordinator JVM (HotSpot raises it to the hard limit)"
printf '%-9s %-6s %-10s %-12s %-9s %10s %10s\n' layout ranks processes connections op median p99
for cfg in "${CONFIGS[@]}"; do
  read -r L N P ITER G <<<"$cfg"
  if [ "$G" = 0 ]; then conns=$N; else conns=$(( (N / P + G - 1) / G * P )); fi
  printf '%-9s %-6s %-10s %-12s %-9s %10s %10s\n' "$L" "$N" "$P" "$conns" barrier "${MED[$L.$N.barrier]}" "${P99[$L.$N.barrier]}"
  printf '%-9s %-6s %-10s %-12s %-9s %10s %10s\n' "$L" "$N" "$P" "$conns" "sum(8)" "${MED[$L.$N.sum]}" "${P99[$L.$N.sum]}"
done
echo "groups: rank-group connections of 8 (16 ranks) or 64 ranks (256, 4096), pre-reduced by the client; per-rank: one connection per rank"
echo "whole checkpoint of 256 simulated ranks (request to commit, median of 10): ${CKPT[groups]} ms in groups of 64, ${CKPT[per-rank]} ms one connection per rank"
echo "coordinator peak RSS with 4096 ranks connected: ${RSS[groups]} MiB in groups of 64, ${RSS[per-rank]} MiB one connection per rank"
printf '{"barrier_ms_16": %s, "barrier_ms_256": %s, "barrier_ms_4096": %s, "reduce_ms_4096": %s, "barrier_p99_ms_4096": %s, "reduce_p99_ms_4096": %s, "checkpoint_ms_256": %s, "rss_mb_4096": %s, "ranks_per_group_4096": 64, ' \
  "${MED[groups.16.barrier]}" "${MED[groups.256.barrier]}" "${MED[groups.4096.barrier]}" "${MED[groups.4096.sum]}" \
  "${P99[groups.4096.barrier]}" "${P99[groups.4096.sum]}" "${CKPT[groups]}" "${RSS[groups]}"
printf '"barrier_ms_16_per_rank_conn": %s, "barrier_ms_256_per_rank_conn": %s, "barrier_ms_4096_per_rank_conn": %s, "reduce_ms_4096_per_rank_conn": %s, "barrier_p99_ms_4096_per_rank_conn": %s, "reduce_p99_ms_4096_per_rank_conn": %s, "checkpoint_ms_256_per_rank_conn": %s, "rss_mb_4096_per_rank_conn": %s}\n' \
  "${MED[per-rank.16.barrier]}" "${MED[per-rank.256.barrier]}" "${MED[per-rank.4096.barrier]}" "${MED[per-rank.4096.sum]}" \
  "${P99[per-rank.4096.barrier]}" "${P99[per-rank.4096.sum]}" "${CKPT[per-rank]}" "${RSS[per-rank]}"
