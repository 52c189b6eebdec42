#!/usr/bin/env bash
# cr_requeue.sh - periodic checkpoints under sbatch, `scontrol requeue`, and the job resuming by itself
# from its newest checkpoint (run inside `cluster.sh --nodes 2 --slurm`).
#
#   cluster.sh --nodes 2 --slurm -- cr_requeue.sh [--agent] openmpi|mpich ROOT PROGRAM
#
# The batch script is docs/examples/mana_requeue.sbatch as users get it (it launches when the checkpoint
# directory is empty and restarts otherwise), with MANA_CKPT_INTERVAL=2 (a checkpoint every 2 s) and
# SLURM_MPI_TYPE (srun's --mpi: pmix for Open MPI, pmi2 for MPICH) in the environment sbatch passes on.
# --agent: with MANA_NODE_AGENT=1: before and after the requeue, each node's ranks on one connection
# (the node agent elected in that run's job step; the first run's agents went with its processes).
#   1. sbatch --requeue on node1,node2 (2+2); wait until every rank directory holds generation 2 or newer
#   2. scontrol requeue: Slurm kills the job and starts it again under the same job id; the script
#      restarts it; every rank registers with the new coordinator restored from a generation at least
#      that new, and the program did not start over (one "ready" line in the appended output)
#   3. stop; the result equals a native run of the same number of iterations
# Every wait is bounded and waits for an event (a file, a line, a job state); exit 0 = PASS.
set -u
agent=
[ "${1:-}" = --agent ] && { agent=1; shift; }
[ $# = 3 ] || { echo "usage: cr_requeue.sh [--agent] openmpi|mpich ROOT PROGRAM" >&2; exit 2; }
mpi=$1 ROOT=$2 prog=$3
case $mpi in
    openmpi) export SLURM_MPI_TYPE=pmix OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;;
    mpich) export SLURM_MPI_TYPE=pmi2;;
    *) echo "cr_requeue: bad MPI $mpi" >&2; exit 2;;
esac
here=$(cd "$(dirname -- "$(readlink -f -- "$0")")" && pwd -P)
script=$here/../../../docs/examples/mana_requeue.sbatch
[ -r "$script" ] || { echo "cr_requeue: $script not found" >&2; exit 2; }
[ -n "${CLUSTER_DIR:-}" ] && [ -n "${SLURM_CONF:-}" ] || { echo "cr_requeue: run me inside cluster.sh --slurm" >&2; exit 2; }
SH=$CLUSTER_DIR/shared/requeue-$mpi
mkdir -p "$SH" || exit 1
name=$(basename "$prog")
unset MANA_RC MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_MPI MANA_NODE_AGENT MANA_AGENT_DIR
export MANA_ROOT=$ROOT CKPTDIR=$SH/ck MANA_CKPT_INTERVAL=2
[ -z "$agent" ] || export MANA_NODE_AGENT=1      # sbatch passes the environment on to srun's ranks

say() { printf 'cr_requeue[%s %s %3ds]: %s\n' "$name" "$mpi" "$SECONDS" "$*"; }
fail() {
    say "FAIL: $*"
    squeue -a 2>&1 | head -n 5
    for f in "$SH"/*.out "$SH"/*.err; do [ -s "$f" ] && { echo "---- $f"; tail -n 30 "$f"; }; done
    ls -l "$SH"/ck/ckpt_rank_* 2>&1
    exit 1
}
. "$(dirname -- "$(readlink -f -- "$0")")/../lib/wait.sh"     # wait_for
. "$(dirname -- "$(readlink -f -- "$0")")/agents.sh"              # one_connection_per_node
. "$(dirname -- "$(readlink -f -- "$0")")/ompi_startup.sh"        # ompi_retry
has() { grep -q -- "$2" "$1" 2>/dev/null; }
job_state() { squeue -h -j "$job" -o %T 2>/dev/null; }
status() { local t=$1; shift; timeout "$t" env MANA_RC="$HOME/.mana-slurm-$job.rc" "$ROOT/bin/mana_status" "$@"; }
# the newest generation every rank directory holds (0: none)
common_gen() {
    local r g min=
    for r in 0 1 2 3; do
        g=$(ls "$SH/ck/ckpt_rank_$r" 2>/dev/null | sed -n 's/.*_gen\([0-9]*\)\.mana$/\1/p' | sort -n | tail -n 1)
        [ -n "$g" ] || { echo 0; return; }
        [ -z "$min" ] || [ "$g" -lt "$min" ] && min=$g
    done
    echo "$min"
}

# retry_startup FILE WHAT: true (ompi_retry) when the job is gone and FILE shows Open MPI's startup crash;
# then the lost run's coordinator, which waits for good for ranks that never registered (and holds the
# batch script's port), is stopped, as a user would, and gone
retry_startup() {
    [ -z "$(job_state)" ] && ompi_retry "$1" "$2: job $job" || return 1
    local c
    c=$(sed -n 's/^Pid: *//p' "$HOME/.mana-slurm-$job.rc" 2>/dev/null)
    status 30 --quit > /dev/null 2>&1
    coordinator_gone() { [ -z "$c" ] || ! kill -0 "$c" 2>/dev/null; }
    wait_for 30 coordinator_gone || fail "the lost run's coordinator (pid $c) did not stop"
}
ready_or_gone() { has "$SH/job.out" '^ready' || [ -z "$(job_state)" ]; }
launch() {
    job=$(sbatch --parsable --requeue -w node1,node2 -o "$SH/job.out" -e "$SH/job.err" "$script" "$prog" --stop-file "$SH/stop") ||
        fail "sbatch refused"
    job=${job%%;*}
    rc_file=$HOME/.mana-slurm-$job.rc     # the job's coordinator's status file (the same after the requeue)
    wait_for 90 ready_or_gone && has "$SH/job.out" '^ready'
}
launch || {
    retry_startup "$SH/job.err" launch && mv "$SH/job.err" "$SH/job.crash.err" && mv "$SH/job.out" "$SH/job.crash.out" && launch
} || fail "no 'ready' from job $job"
gen2() { [ "$(common_gen)" -ge 2 ]; }
wait_for 60 gen2 || fail "no periodic checkpoint of generation 2 in 60 s (-i 2)"
[ -z "$agent" ] || one_connection_per_node "launch"
before=$(common_gen)
# requeue: scontrol requeue, and the same job id runs again: a new coordinator (another Pid in the same
# status file), every rank restored and RUNNING (one control connection, no JVM per look)
requeue() {
    pid_before=$(sed -n 's/^Pid: *//p' "$HOME/.mana-slurm-$job.rc")
    err_lines=$(wc -l < "$SH/job.err")    # the requeued run appends to the same files
    say "job $job: generation $before on disk; scontrol requeue"
    scontrol requeue "$job" || fail "scontrol requeue $job"
    # Slurm holds a requeued batch job for a while (its begin time moves about two minutes ahead, so the
    # nodes are cleaned up first): once it is pending again, let it be eligible now
    pending() { [ "$(job_state)" = PENDING ]; }
    wait_for 60 pending || fail "job $job is not pending after the requeue (state '$(job_state)')"
    # ...but only once both nodes are idle again: the first run's processes gone (its coordinator exits
    # after its last rank) and slurmd done with the job. Started on a node still completing it, the
    # requeued run vanished without a line of output (seen once in a clean-clone run).
    idle() { [ "$(sinfo -h -n node1,node2 -o %T 2>/dev/null | sort -u)" = idle ] && ! kill -0 "$pid_before" 2>/dev/null; }
    wait_for 120 idle || fail "the nodes are not idle after the requeue ($(sinfo -h -n node1,node2 -o '%n %T' | tr '\n' ' '))"
    scontrol update JobId="$job" StartTime=now || fail "cannot make the requeued job $job eligible now"
    new_coord() { p=$(sed -n 's/^Pid: *//p' "$HOME/.mana-slurm-$job.rc" 2>/dev/null); [ -n "$p" ] && [ "$p" != "$pid_before" ]; }
    wait_for 120 new_coord || fail "job $job did not run again after the requeue (state '$(job_state)')"
    # (looked at in 2 s slices: a run that dies before its ranks register leaves a coordinator that waits
    # for them for good, and the job gone)
    back_or_gone() {
        [ -z "$(job_state)" ] ||
            timeout 10 env MANA_RC="$HOME/.mana-slurm-$job.rc" "$ROOT/bin/mana_coord_probe" --await-running 4 --timeout 2000 > /dev/null 2>&1
    }
    local end=$((SECONDS + 90))     # (wait_for counts its 50 ms looks, and each look here takes up to 2 s)
    until back_or_gone; do [ "$SECONDS" -lt "$end" ] || return 1; done
    [ -n "$(job_state)" ]
}
# a requeued run lost to Open MPI's startup crash (in the restart's MPI_Init) is requeued once more, as a
# user would: the checkpoint it restarts from is untouched
requeue || {
    tail -n +"$((err_lines + 1))" "$SH/job.err" > "$SH/requeue.err"
    retry_startup "$SH/requeue.err" "after the requeue" && requeue
} || { status 20 --list; fail "the requeued job's ranks are not back"; }
# then each at a generation >= the one seen before (restored from it or checkpointed since; the state may
# be a periodic checkpoint's by then)
[ "$(status 20 --list 2>/dev/null | awk -v g="$before" 'NR > 1 && $5 >= g' | wc -l)" = 4 ] ||
    { status 20 --list; fail "the requeued job's ranks are not back from generation >= $before"; }
say "requeued job $job: every rank back, restored from generation >= $before"
[ -z "$agent" ] || one_connection_per_node "after the requeue"
[ "$(grep -c '^ready' "$SH/job.out")" = 1 ] || fail "the program started over after the requeue (a second 'ready')"
grep -q 'restarted without a coordinator\|cannot reach coordinator\|cannot read status file' "$SH/job.err" &&
    fail "a rank did not register with the requeued job's coordinator at the first try"

echo 30 > "$SH/stop"
gone() { [ -z "$(job_state)" ]; }
wait_for 120 gone || fail "the job did not end after the stop file"
got=$(grep "done: " "$SH/job.out" | tail -n 1)
[ -n "$got" ] || fail "no 'done:' line"
iters=$(echo "$got" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
# (srun -K: a task that dies ends the step at once; its peers would wait for it until the time-out)
native() { timeout 120 srun -K -N 2 --ntasks-per-node=2 -w node1,node2 "$prog" --iters "$iters" > "$SH/native.out" 2>&1; }
native || { ompi_retry "$SH/native.out" "the native run" && native; } || fail "native run failed"
want=$(grep "done: " "$SH/native.out" | tail -n 1)
[ "$got" = "$want" ] || fail "results differ: runtime '$got', native '$want'"
say "PASS ($got)"
