#!/usr/bin/env bash
# bench_agent.sh [N...] - barrier latency of N real rank processes (bin/mana_coord_probe, one process and
# one client handle per rank, as the runtime's ranks have) with and without node agents:
#   direct:  each rank on its own connection to the coordinator (today's default);
#   agents:  ranks in "nodes" of 16 (MANA_BENCH_AGENT_RANKS), each node's ranks through one
#            bin/mana_node_agent (one group connection per node, collectives reduced in the agent).
# All on this one host: the agent's hop is over loopback, as on a real node.  Each configuration runs
# ITER barriers (MANA_BENCH_ITER, default 300; phase 64, outside checkpoints) against a fresh job of the
# same coordinator; the figure is rank 0's median and p99 round trip (COLLECTIVE sent -> DONE back).
# Prints a table, then ONE JSON line (barrier_p50_us_direct_N, barrier_p50_us_agents_N, ... ).
#
# bench_agent.sh --simulated [RANKS [AGENTS [ITER]]] - the coordinator benchmark's simulated ranks
# (bin/mana_simrank, 4 JVMs, one connection per rank) through AGENTS node agents (default 4,096 ranks
# through 64 agents of 64, 300 iterations), beside the same ranks as rank groups of RANKS/AGENTS made
# by mana_simrank itself (what make bench-coordinator's "groups" layout measures): the agents' hop is
# the difference.  Barrier and 8-value sum, first rank in -> last rank out over all 4 processes.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$ROOT/bin
for b in mana_coordinator mana_coord_probe mana_node_agent; do
    [ -x "$BIN/$b" ] || { echo "bench_agent: $BIN/$b missing: make build first" >&2; exit 1; }
done
SIM=
if [ "${1:-}" = --simulated ]; then
    SIM=1
    SIM_N=${2:-4096} SIM_A=${3:-64} SIM_ITER=${4:-300}
    set --
    [ -x "$BIN/mana_simrank" ] || { echo "bench_agent: $BIN/mana_simrank missing: make build first" >&2; exit 1; }
fi
SIZES=("${@:-16 64}")
read -r -a SIZES <<< "${SIZES[*]}"
PER=${MANA_BENCH_AGENT_RANKS:-16}
ITER=${MANA_BENCH_ITER:-300}
tmp=$(mktemp -d /tmp/mana-bench-agent.XXXXXX) || exit 1
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for f in "$tmp"/*/endpoint; do [ -r "$f" ] && kill "$(sed -n 's/^Pid: *//p' "$f")" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp MANA_RC=$tmp/coord.rc
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_NODE_AGENT
"$BIN/mana_coordinator" --foreground --no-exit-on-last -q -p 0 --status-file "$MANA_RC" > "$tmp/coord.log" 2>&1 &
COORD_PID=$!
pids="$pids $COORD_PID"
for _ in $(seq 600); do grep -q '^Secret:' "$MANA_RC" 2>/dev/null && break; sleep 0.05; done
grep -q '^Secret:' "$MANA_RC" || { echo "bench_agent: coordinator did not start" >&2; cat "$tmp/coord.log" >&2; exit 1; }
cport=$(sed -n 's/^Port: *//p' "$MANA_RC")
secret=$(sed -n 's/^Secret: *//p' "$MANA_RC")
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)

# the coordinator's CPU time so far, in ms (utime + stime of its JVM)
coord_cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{printf "%d", ($14 + $15) * 1000 / hz}' "/proc/$COORD_PID/stat"; }
# --simulated: LAYOUT agents|groups|per-rank; 4 mana_simrank processes of N/4 ranks each.
sim() {
    local layout=$1 n=$SIM_N a=$SIM_A job="sim$1" per=$((SIM_N / 4)) p k ports=() pids=() opts
    local size=$((n / a))
    if [ "$layout" = agents ]; then
        for ((k = 0; k < a; k++)); do
            ports+=("$(printf '%s' "$secret" | MANA_AGENT_RANKS=$size MANA_AGENT_GATHER_MS=60000 \
                "$BIN/mana_node_agent" --ensure --dir "$tmp/$job-node$k" --coord-host 127.0.0.1 --coord-port "$cport")") ||
                { echo "bench_agent: no agent" >&2; exit 1; }
        done
    fi
    for ((p = 0; p < 4; p++)); do
        if [ "$layout" = agents ]; then
            local mine=("${ports[@]:$((p * a / 4)):$((a / 4))}")
            opts=(-h 127.0.0.1 --ports "$(IFS=,; echo "${mine[*]}")")
        elif [ "$layout" = groups ]; then
            opts=(--group-size "$size")
        else
            opts=()
        fi
        MANA_COORD_SECRET=$secret "$BIN/mana_simrank" "${opts[@]}" -j "$job" -n "$per" --first $((p * per)) --nranks "$n" \
            --bench "$SIM_ITER" --bench-out "$tmp/t$job.$p" > "$tmp/$job.$p.log" 2>&1 &
        pids+=($!)
    done
    local cpu0
    cpu0=$(coord_cpu_ms)
    for p in "${pids[@]}"; do
        wait "$p" || { echo "bench_agent: a simrank failed ($layout):" >&2; cat "$tmp/$job".*.log "$tmp/$job"-node0/agent.log >&2; exit 1; }
    done
    # the coordinator's CPU per collective (registration and exit included, 2 x ITER collectives)
    CPU[$layout]=$(awk -v a="$cpu0" -v b="$(coord_cpu_ms)" -v n=$((2 * SIM_ITER)) 'BEGIN {printf "%.2f", (b - a) / n}')
    for kind in barrier sum; do
        read -r med p99 _ < <(java -XX:TieredStopAtLevel=1 -cp "$ROOT/lib/java/control-plane.jar" \
            dev.mana.coordinator.cli.BenchReport $((SIM_ITER / 10)) "$tmp/t$job".*.$kind)
        P50[$layout.$kind]=$med
        P99[$layout.$kind]=$p99
    done
}
declare -A P50 P99 CPU
if [ -n "$SIM" ]; then
    SIM_LAYOUTS=${MANA_BENCH_LAYOUTS:-groups agents per-rank}
    for l in $SIM_LAYOUTS; do sim "$l"; done
    echo "Simulated ranks (mana_simrank, 4 processes, $SIM_N ranks), $SIM_ITER each, $(nproc) cores, load average $LOAD_BEFORE before / $(cut -d' ' -f1 /proc/loadavg) after; round trips in ms (first rank in -> last rank out)"
    printf '%-9s %-34s %-8s %10s %10s %16s\n' layout connections op median p99 coord_cpu_ms/op
    json=
    for l in $SIM_LAYOUTS; do
        case $l in
            groups) c="$SIM_A groups of $((SIM_N / SIM_A)) (simrank's own)";;
            agents) c="$SIM_N to $SIM_A agents, $SIM_A groups up";;
            *) c="$SIM_N, one per rank";;
        esac
        for kind in barrier sum; do
            printf '%-9s %-34s %-8s %10s %10s %16s\n' $l "$c" $kind "${P50[$l.$kind]}" "${P99[$l.$kind]}" "${CPU[$l]}"
            json="$json\"${kind}_ms_${SIM_N}_${l//-/_}\":${P50[$l.$kind]},\"${kind}_p99_ms_${SIM_N}_${l//-/_}\":${P99[$l.$kind]},"
        done
        json="$json\"coord_cpu_ms_per_op_${SIM_N}_${l//-/_}\":${CPU[$l]},"
    done
    echo "{${json}\"agents\":$SIM_A,\"iterations\":$SIM_ITER,\"cores\":$(nproc)}"
    exit 0
fi

# run LAYOUT N: N probes, all started before any measures (each waits for the others at its first
# barrier); rank 0's line "p50 X us, p99 Y us".
run() {
    local layout=$1 n=$2 job="$1$2" r port= ps=()
    for ((r = 0; r < n; r++)); do
        local addr=()
        if [ "$layout" = agents ]; then
            if [ $((r % PER)) = 0 ]; then
                local left=$((n - r)) k=$PER
                [ $left -lt $k ] && k=$left
                port=$(printf '%s' "$secret" | MANA_AGENT_RANKS=$k "$BIN/mana_node_agent" --ensure \
                         --dir "$tmp/$job-node$((r / PER))" --coord-host 127.0.0.1 --coord-port "$cport") ||
                    { echo "bench_agent: no agent" >&2; exit 1; }
            fi
            addr=(-h 127.0.0.1 -p "$port" -s "$secret")
        fi
        "$BIN/mana_coord_probe" "${addr[@]}" -j "$job" -r "$r" -n "$n" -k "$ITER" > "$tmp/$job.$r" 2>&1 &
        ps+=($!)
    done
    for p in "${ps[@]}"; do
        wait "$p" || { echo "bench_agent: a probe failed ($layout, $n):" >&2; cat "$tmp/$job".* >&2; exit 1; }
    done
    P50[$layout.$n]=$(sed -n 's/.*p50 \([0-9.]*\) us.*/\1/p' "$tmp/$job.0")
    P99[$layout.$n]=$(sed -n 's/.*p99 \([0-9.]*\) us.*/\1/p' "$tmp/$job.0")
}
for n in "${SIZES[@]}"; do
    run direct "$n"
    run agents "$n"
done

echo "Barrier round trips of real rank processes (mana_coord_probe), $ITER each, $(nproc) cores, load average $LOAD_BEFORE before / $(cut -d' ' -f1 /proc/loadavg) after"
printf '%-8s %-7s %-12s %12s %12s\n' layout ranks connections p50_us p99_us
json=
for n in "${SIZES[@]}"; do
    for l in direct agents; do
        if [ $l = direct ]; then c=$n; else c=$(((n + PER - 1) / PER)); fi
        printf '%-8s %-7s %-12s %12s %12s\n' $l "$n" "$c" "${P50[$l.$n]}" "${P99[$l.$n]}"
        json="$json\"barrier_p50_us_${l}_$n\":${P50[$l.$n]},\"barrier_p99_us_${l}_$n\":${P99[$l.$n]},"
    done
done
echo "{${json}\"ranks_per_agent\":$PER,\"iterations\":$ITER,\"cores\":$(nproc)}"
