#!/usr/bin/env bash
# bench_cluster.sh - `make bench-cluster`: the runtime across nodes, on the namespace cluster of the
# multi-node tests (core-native/tests/cluster/cluster.sh --nodes 4 --slurm: real Slurm daemons, one
# network + UTS + mount namespace per node, all on this machine). Needs root; without it, or without
# Slurm and munge, it says so and exits 1 (a benchmark has no "skipped").
#
# For Open MPI (srun --mpi=pmix) and MPICH (srun --mpi=pmi2), native and under the runtime in the same
# run, the heat demo (core-native/examples/heat_mpi.c, 1 rank per node, STEPS steps with no pause) on
# 1, 2 and 4 nodes (one rank a node: the machine has 2 cores, and MPI ranks spin while they wait; with
# 2 ranks a node, 8 spinning ranks made a step of MPICH take seconds):
#   start       sbatch to the job's first step (native: srun heat; runtime: the coordinator's start
#               on the first node, then srun mana_launch heat)
#   step        mean time of a step (steps 1 to STEPS-1, as rank 0 prints them)
#   checkpoint  as the coordinator reports it (mana_coord_probe --checkpoint: elapsed_s), the job held
#               before its last step (TEST_HOLD_FILE)
#   image       mean image size per rank
#   restart     sbatch of `srun mana_restart` to the restarted job's first step (its last: STEPS)
#   migration   scancel of the checkpointed job to that first step; the restart runs on other nodes
#               (1 node: node1 -> node2; 2 nodes: node1,node2 -> node3,node4); 4 nodes restart where
#               they were (there are no others)
# and the restarted job's result must equal the native run's (else the benchmark fails).
# Then the coordinator's barrier latency with one connection per rank, at 64 ranks on 4 nodes (16 a
# node): real processes, each the runtime's C coordinator client (mana_coord_probe, the client code
# an MPI rank links) with its own TCP connection from its node to the coordinator on node1; and an
# attempt to start 64 real MPI ranks (heat under mana_launch, MPICH, 16 a node) and checkpoint them.
# The same barrier again through a per-node agent on each node (mana_node_agent: one group connection
# per node, the node's contributions reduced there); null when that run fails.
# A table, then one JSON line (bench_run.py). Every wait waits for an event, with a bound.
#   BENCH_CLUSTER_STEPS (30) steps of heat; BENCH_CLUSTER_BARRIERS (300) barriers per probe;
#   BENCH_CLUSTER_RANKS (64) ranks of the barrier and big-job figures; BENCH_CLUSTER_MPIS ("openmpi
#   mpich") the MPIs of the per-node-count figures (empty: only the barrier and the big job);
#   BENCH_CLUSTER_KEEP=1 keeps the cluster's folder (job output, coordinator logs, images) for a look.
set -u
ROOT=$(cd "$(dirname -- "$(readlink -f -- "$0")")/../.." && pwd -P)
HERE=$ROOT/core-native/bench
CLUSTER=$ROOT/core-native/tests/cluster/cluster.sh
STEPS=${BENCH_CLUSTER_STEPS:-30} NB=${BENCH_CLUSTER_BARRIERS:-300} BIG=${BENCH_CLUSTER_RANKS:-64}

if [ "${1:-}" != --inside ]; then
    # ---- outside the cluster: checks, programs, then the cluster with this script inside ----------
    no() { echo "bench_cluster: $*: not run" >&2; exit 1; }
    [ "$(id -u)" = 0 ] || no "needs root (the namespace cluster: network, UTS and mount namespaces, a bridge, Slurm daemons)"
    for t in ip nsenter unshare sbatch srun squeue scancel slurmctld slurmd munged mungekey mpicc.openmpi mpicc.mpich; do
        command -v "$t" > /dev/null || no "needs '$t' (make deps: slurm-wlm, munge, iproute2, util-linux, MPI)"
    done
    for t in mana_coordinator mana_launch mana_restart mana_coord_probe lower-half-openmpi lower-half-mpich; do
        [ -x "$ROOT/bin/$t" ] || no "$ROOT/bin/$t missing (make build)"
    done
    case $ROOT/ in /tmp/*) no "$ROOT is under /tmp, which is node-local on the cluster";; esac
    # the programs every node runs: on a folder all nodes see (not /tmp), removed on any exit
    prog=$(mktemp -d /var/tmp/mana_benchcluster.XXXXXX) || exit 1
    trap 'rm -rf "$prog"' EXIT
    trap 'exit 130' INT TERM
    chmod 0755 "$prog"
    mpicc.openmpi -O2 -o "$prog/heat_openmpi" "$ROOT/core-native/examples/heat_mpi.c" || exit 1
    mpicc.mpich -O2 -o "$prog/heat_mpich" "$ROOT/core-native/examples/heat_mpi.c" || exit 1
    unset MANA_TEST_CANNOT      # a benchmark that cannot run fails; it is never "skipped"
    "$CLUSTER" --nodes 4 --slurm ${BENCH_CLUSTER_KEEP:+--keep} -- "$HERE/bench_cluster.sh" --inside "$prog"
    exit $?
fi

# ---- inside: on the cluster's head node (cluster.sh: CLUSTER_DIR, SLURM_CONF, `on`) ------------------
prog=$2
[ -n "${CLUSTER_DIR:-}" ] && [ -n "${SLURM_CONF:-}" ] || { echo "bench_cluster: --inside is for cluster.sh --slurm" >&2; exit 2; }
SH=$CLUSTER_DIR/shared/bench       # the shared file system: checkpoints, job output, hold files
mkdir -p "$SH" || exit 1
unset MANA_RC MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_MPI TEST_HOLD_FILE
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$ROOT/core-native/tests/lib/wait.sh"      # wait_for, names_secret
say() { printf 'bench_cluster[%4ds]: %s\n' "$SECONDS" "$*" >&2; }
bg_pids=()
cleanup() {   # what this script started; cluster.sh then removes the daemons, namespaces and folder
    local p
    scancel --quiet --user=root 2>/dev/null
    for p in "${bg_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
fail() {
    say "FAIL: $*"
    squeue -a >&2 2>&1
    local f
    for f in "$SH"/*.err; do [ -s "$f" ] && { echo "---- $f" >&2; tail -n 20 "$f" >&2; }; done
    exit 1
}
now() { date +%s.%N; }
sub() { echo "$1 - $2" | bc; }
num() { case "${1:-}" in ""|none|null) echo null;; *) printf '%.3f' "$1";; esac; }

# wait_line SECONDS FILE PATTERN: until a line of FILE matches PATTERN (1 when the time runs out).
# tail -F on an existing file is woken by inotify, so the return follows the line by ~20 ms, where a
# file that does not exist yet is looked for once a second: submit makes the output files first.
wait_line() {
    local fd pid rc
    exec {fd}< <(exec timeout "$1" tail -n +1 -F -- "$2" 2>/dev/null)
    pid=$!
    grep -q -m1 -- "$3" <&"$fd"
    rc=$?
    exec {fd}<&-
    kill "$pid" 2>/dev/null      # timeout passes the TERM on to tail
    return $rc
}
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_gone() { [ -z "$(job_state "$1")" ]; }

# The batch script: --native runs srun PROGRAM; otherwise the coordinator on the job's first node
# first (as docs/examples/mana_launch.sbatch), then srun of the runtime's command.
cat > "$SH/job.sh" <<EOF
#!/bin/bash
set -u
pmi=\$1; shift
if [ "\$1" = --native ]; then shift; exec srun --mpi=\$pmi "\$@"; fi
"$ROOT/bin/mana_coordinator" -p 0 --log-file "$SH/coord-\$SLURM_JOB_ID.log" || exit 1
rc=\$HOME/.mana-slurm-\$SLURM_JOB_ID.rc
n=600
until grep -q '^Secret:' "\$rc" 2>/dev/null; do
    n=\$((n - 1)); [ \$n -gt 0 ] || { echo "no coordinator status file \$rc" >&2; exit 1; }; sleep 0.05
done
exec srun --mpi=\$pmi "\$@"
EOF
chmod +x "$SH/job.sh"

# submit TAG SBATCH-OPTIONS... -- ARGS...: job id in $job, submit time in $t_sub, output $SH/TAG.out
submit() {
    local tag=$1; shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift
    : > "$SH/$tag.out"; : > "$SH/$tag.err"     # there before the job writes (wait_line), appended to
    t_sub=$(now)
    job=$(sbatch --parsable -J "$tag" --open-mode=append -o "$SH/$tag.out" -e "$SH/$tag.err" "${opts[@]}" "$SH/job.sh" "$pmi" "$@") ||
        fail "sbatch of $tag refused"
    job=${job%%;*}
}
step_re() { echo "^heat step *$1/$STEPS:"; }
result() { grep '^heat done:' "$1" | tail -n 1; }

# one_case N NODES RESTART_NODES: the figures of heat on N nodes (1 rank each) for $mpi, in R_* vars
one_case() {
    local n=$1 nodes=$2 rnodes=$3 tag=${mpi}_$1 t1 t2 tc tr
    local np=$n ck=$SH/ck_${mpi}_$1 hold=$SH/hold_${mpi}_$1
    # native: sbatch to the first step; steps 1 .. STEPS-1
    submit "nat_$tag" -N "$n" --ntasks-per-node=1 -w "$nodes" -- --native "$prog/heat_$mpi" "$STEPS" 0
    wait_line 120 "$SH/nat_$tag.out" "$(step_re 1)" || fail "native $tag: no first step"
    t1=$(now); R_start_n=$(sub "$t1" "$t_sub")
    wait_line 300 "$SH/nat_$tag.out" "$(step_re $((STEPS - 1)))" || fail "native $tag: no step $((STEPS - 1))"
    t2=$(now); R_step_n=$(echo "scale=6; ($t2 - $t1) * 1000 / ($STEPS - 2)" | bc)
    wait_for 120 job_gone "$job" || fail "native $tag: job $job did not end"
    local want; want=$(result "$SH/nat_$tag.out")
    [ -n "$want" ] || fail "native $tag: no 'heat done' line"
    # under the runtime, held before the last step
    rm -f "$hold"
    TEST_HOLD_FILE=$hold submit "run_$tag" -N "$n" --ntasks-per-node=1 -w "$nodes" -- \
        "$ROOT/bin/mana_launch" --ckptdir "$ck" "$prog/heat_$mpi" "$STEPS" 0
    wait_line 120 "$SH/run_$tag.out" "$(step_re 1)" || fail "runtime $tag: no first step"
    t1=$(now); R_start_m=$(sub "$t1" "$t_sub")
    wait_line 300 "$SH/run_$tag.out" "$(step_re $((STEPS - 1)))" || fail "runtime $tag: no step $((STEPS - 1))"
    t2=$(now); R_step_m=$(echo "scale=6; ($t2 - $t1) * 1000 / ($STEPS - 2)" | bc)
    local rc_file=$HOME/.mana-slurm-$job.rc
    timeout 70 env MANA_RC="$rc_file" "$ROOT/bin/mana_coord_probe" --await-running "$np" --timeout 60000 > /dev/null ||
        fail "runtime $tag: $np ranks not RUNNING"
    local line
    line=$(timeout 120 env MANA_RC="$rc_file" "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 110000) || fail "runtime $tag: checkpoint failed: $line"
    R_ckpt=$(echo "$line" | sed -n 's/.* elapsed_s=\([0-9.]*\).*/\1/p')
    R_img=$(du -b "$ck"/ckpt_rank_*/*_gen1.mana | awk '{ s += $1; k++ } END { if (k) printf "%.2f", s / k / 1048576 }')
    [ "$(ls "$ck"/ckpt_rank_*/*_gen1.mana 2>/dev/null | wc -l)" = "$np" ] || fail "runtime $tag: not $np images"
    tc=$(now)
    scancel "$job" || fail "scancel $job"
    wait_for 60 job_gone "$job" || fail "runtime $tag: job $job still there after scancel"
    # restart (the hold file exists now: the restored ranks run their last step and end)
    echo go > "$hold"
    submit "rst_$tag" -N "$n" --ntasks-per-node=1 -w "$rnodes" -- "$ROOT/bin/mana_restart" --restartdir "$ck"
    wait_line 120 "$SH/rst_$tag.out" "$(step_re "$STEPS")" || fail "restart $tag: no step $STEPS"
    tr=$(now); R_restart=$(sub "$tr" "$t_sub"); R_migr=$(sub "$tr" "$tc")
    wait_for 120 job_gone "$job" || fail "restart $tag: job $job did not end"
    local got; got=$(result "$SH/rst_$tag.out")
    [ "$got" = "$want" ] || fail "restart $tag: result '$got', native '$want'"
    say "$mpi, $n node(s): start $R_start_n / $R_start_m s, step $R_step_n / $R_step_m ms, checkpoint $R_ckpt s, image $R_img MB, restart $R_restart s, migration $R_migr s"
}

json=""
for mpi in ${BENCH_CLUSTER_MPIS-openmpi mpich}; do
    case $mpi in openmpi) pmi=pmix; p=ompi;; mpich) pmi=pmi2; p=mpich;; esac
    printf '\n%s (srun --mpi=%s), heat_mpi %d steps, no pause, 1 rank per node\n' "$mpi" "$pmi" "$STEPS"
    printf '%-6s %-14s %9s %9s %9s %9s %8s %8s %9s %9s\n' nodes "restart on" "start(s)" "start(s)" "step(ms)" "step(ms)" "ckpt(s)" "img(MB)" "restart" "migrate"
    printf '%-6s %-14s %9s %9s %9s %9s %8s %8s %9s %9s\n' "" "" native MANA native MANA MANA MANA "(s)" "(s)"
    for c in "1 node1 node2" "2 node1,node2 node3,node4" "4 node1,node2,node3,node4 node1,node2,node3,node4"; do
        set -- $c
        one_case "$1" "$2" "$3"
        printf '%-6s %-14s %9.2f %9.2f %9.2f %9.2f %8.3f %8.2f %9.2f %9.2f\n' "$1" "$( [ "$3" = "$2" ] && echo same || echo "$3")" \
            "$R_start_n" "$R_start_m" "$R_step_n" "$R_step_m" "$R_ckpt" "$R_img" "$R_restart" "$R_migr"
        k=${p}_n$1
        json="$json\"${k}_start_native_s\":$(num "$R_start_n"),\"${k}_start_mana_s\":$(num "$R_start_m"),\"${k}_step_native_ms\":$(num "$R_step_n"),\"${k}_step_mana_ms\":$(num "$R_step_m"),\"${k}_ckpt_s\":$(num "$R_ckpt"),\"${k}_image_mb\":$(num "$R_img"),\"${k}_restart_s\":$(num "$R_restart"),\"${k}_scancel_to_step_s\":$(num "$R_migr"),"
    done
done

# ---- coordinator barrier, one connection per rank, BIG real client processes on 4 nodes -----------
# The coordinator on node1 (C1 JIT, as the tests start it: wait.sh), the probes spread round-robin.
brc=$SH/barrier.rc
on node1 env MANA_COORDINATOR_JVM_OPTS="-XX:+UseSerialGC -XX:-UsePerfData" \
    "$ROOT/bin/mana_coordinator" --foreground --no-exit-on-last -q -p 0 --status-file "$brc" > "$SH/barrier-coord.log" 2>&1 &
bg_pids+=($!)
wait_for 30 names_secret "$brc" || fail "barrier coordinator did not start: $(cat "$SH/barrier-coord.log")"
# barrier_at N [agents]: median over the ranks of each rank's median barrier (us), in B_p50; max p99 in
# B_p99.  With "agents", each node's ranks reach the coordinator through that node's mana_node_agent (one
# group connection per node, the node's barrier contributions reduced there), which each node starts
# first as its first rank would (--ensure: the port on the node's loopback).
barrier_at() {
    local n=$1 layout=${2:-direct} r k pids=() ok=1 ports=() addr chost cport secret
    rm -f "$SH"/probe_*.out
    if [ "$layout" = agents ]; then
        chost=$(sed -n 's/^Host: //p' "$brc") cport=$(sed -n 's/^Port: //p' "$brc") secret=$(sed -n 's/^Secret: //p' "$brc")
        for k in 1 2 3 4; do
            ports[$k]=$(printf '%s' "$secret" | on "node$k" env MANA_AGENT_RANKS=$(((n + 4 - k) / 4)) \
                "$ROOT/bin/mana_node_agent" --ensure --dir "$SH/agent-$n-node$k" --coord-host "$chost" --coord-port "$cport") ||
                { say "barrier at $n ranks: no agent on node$k"; return 1; }
        done
    fi
    for ((r = 0; r < n; r++)); do
        k=$((r % 4 + 1))
        if [ "$layout" = agents ]; then addr=(-h 127.0.0.1 -p "${ports[$k]}" -s "$secret" -j "agents$n")
        else addr=(-j "barrier$n"); fi
        on "node$k" env MANA_RC="$brc" timeout 300 "$ROOT/bin/mana_coord_probe" "${addr[@]}" \
            -r "$r" -n "$n" -k "$NB" --timeout 120000 > "$SH/probe_$r.out" 2>&1 &
        pids+=($!); bg_pids+=($!)
    done
    for r in "${pids[@]}"; do wait "$r" || ok=; done
    [ -n "$ok" ] || { say "barrier at $n ranks: a probe failed: $(cat "$SH"/probe_*.out | grep -v '^probe' | head -n 3)"; return 1; }
    B_p50=$(sed -n 's/.* p50 \([0-9.]*\) us.*/\1/p' "$SH"/probe_*.out | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
    B_p99=$(sed -n 's/.* p99 \([0-9.]*\) us.*/\1/p' "$SH"/probe_*.out | sort -n | tail -n 1)
    [ "$(grep -c 'results ok' "$SH"/probe_*.out | awk -F: '{ s += $2 } END { print s }')" = "$n" ]
}
bar_n=
for n in "$BIG" $((BIG / 2)) $((BIG / 4)); do
    if barrier_at "$n"; then bar_n=$n; break; fi
done
[ -n "$bar_n" ] || fail "no barrier run succeeded"
say "barrier: $bar_n ranks, median $B_p50 us, worst p99 $B_p99 us"
D_p50=$B_p50 D_p99=$B_p99 A_p50= A_p99=
if barrier_at "$bar_n" agents; then A_p50=$B_p50 A_p99=$B_p99; say "through 4 node agents: median $A_p50 us, worst p99 $A_p99 us"
else say "barrier through node agents failed: $(cat "$SH"/probe_*.out | grep -v '^probe' | head -n 3)"; fi

# ---- BIG real MPI ranks (MPICH, heat under mana_launch, 16 a node): do they start, what does a
# checkpoint cost? heat of 1 step holds before it (TEST_HOLD_FILE), right after MPI_Init: the ranks
# wait in nanosleep, not spinning in MPI (64 spinning ranks on 2 cores would not get through a step).
# The nodes declare 4 CPUs each: -n 64 --overcommit places 16 a node (--ntasks-per-node=16 is refused,
# "Requested node configuration is not available", overcommit or not).
mpi=mpich pmi=pmi2 big_ck= big_note=
hold=$SH/hold_big; rm -f "$hold"
TEST_HOLD_FILE=$hold submit big -N 4 -n "$BIG" --overcommit -w node1,node2,node3,node4 -- \
    "$ROOT/bin/mana_launch" --ckptdir "$SH/ck_big" "$prog/heat_mpich" 1 0
big_rc=$HOME/.mana-slurm-$job.rc
if wait_for 120 names_secret "$big_rc" &&
   timeout 250 env MANA_RC="$big_rc" "$ROOT/bin/mana_coord_probe" --await-running "$BIG" --timeout 240000 > /dev/null; then
    t1=$(sub "$(now)" "$t_sub")
    line=$(timeout 300 env MANA_RC="$big_rc" "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 290000) &&
        big_ck=$(echo "$line" | sed -n 's/.* elapsed_s=\([0-9.]*\).*/\1/p')
    big_note="$BIG MPICH ranks running $(printf '%.1f' "$t1") s after sbatch; checkpoint "
    if [ -n "$big_ck" ]; then big_note="${big_note}in $big_ck s"; else big_note="${big_note}failed: $line"; fi
else
    big_note="$BIG MPICH ranks did not all run within 6 minutes (job: $(job_state "$job"); $(tail -n 2 "$SH/big.err" 2>/dev/null | tr '\n' ' '))"
fi
scancel "$job"; wait_for 60 job_gone "$job" || say "big job $job still listed after scancel"
say "$big_note"

printf '\ncoordinator barrier (mana_coord_probe: the C client MPI ranks use)\n'
printf '%-52s %10s\n' "ranks (nodes 4, coordinator on node1)" "$bar_n"
printf '%-52s %10s\n' "one TCP connection per rank: median of ranks' p50 (us)" "$D_p50"
printf '%-52s %10s\n' "one TCP connection per rank: worst rank's p99 (us)" "$D_p99"
printf '%-52s %10s\n' "a node agent per node: median of ranks' p50 (us)" "${A_p50:-failed}"
printf '%-52s %10s\n' "a node agent per node: worst rank's p99 (us)" "${A_p99:-failed}"
printf '%-44s %10s\n' "checkpoint of $BIG real MPI ranks (s)" "${big_ck:-null}"
printf '  (%s)\n' "$big_note"
echo
echo "{${json}\"barrier_ranks\":$bar_n,\"barrier_per_rank_conn_us\":$(num "$D_p50"),\"barrier_per_rank_conn_p99_us\":$(num "$D_p99"),\"barrier_per_node_agent_us\":$(num "$A_p50"),\"barrier_per_node_agent_p99_us\":$(num "$A_p99"),\"big_mpi_ranks\":$BIG,\"big_mpi_ckpt_s\":$(num "${big_ck:-}")}"
