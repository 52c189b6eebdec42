#!/usr/bin/env bash
# cr_slurm.sh - an MPI job under Slurm on the namespace cluster, checkpointed, cancelled and restarted
# on other nodes, twice, then compared with a native run (run inside `cluster.sh --nodes 4 --slurm`).
#
#   cluster.sh --nodes 4 --slurm -- cr_slurm.sh [--once] MPI ROOT PROGRAM
#
# MPI is openmpi (srun --mpi=pmix) or mpich (srun --mpi=pmi2); ROOT the runtime (bin/, lib/);
# PROGRAM a test program of tests/mpi (mpitest.h: --stop-file / --iters).
#   1. sbatch on node1,node2 (2 ranks each): the batch script starts mana_coordinator on the job's
#      first node (status file ~/.mana-slurm-$SLURM_JOB_ID.rc) and `srun mana_launch`; every rank
#      registers over the node network (mana_status --list names node1 and node2, two ranks each)
#   2. mana_status --checkpoint from the head (the login node), then scancel (as a time limit would)
#   3. sbatch on node3,node4 (2+2): `srun mana_restart`; the ranks run there; checkpoint, scancel
#   4. sbatch on node1,node2 placed 1+3 (srun -m arbitrary): `srun mana_restart`; stop; the result
#      equals a native srun of the same number of iterations
# --once: one restart instead of steps 3 and 4, on the other two nodes and placed 1+3 at once (shorter);
# with --same-shape placed 2+2 there instead (shmwin.c: each node's ranks share a window).
# --agent: every run with MANA_NODE_AGENT=1 (one node agent per node and run, elected among the node's
# ranks under srun: SLURM_STEP_TASKS_PER_NODE, SLURM_NODEID); wherever the ranks are placed, the
# coordinator must list each node's ranks on one connection of that node's own.
# Every wait is bounded and waits for an event (a line, a file, a job state); exit 0 = PASS.
set -u
once= same_shape= agent=
while [ $# -gt 0 ]; do
    case $1 in --once) once=1; shift;; --same-shape) same_shape=1; shift;; --agent) agent=1; shift;; *) break;; esac
done
[ $# = 3 ] || { echo "usage: cr_slurm.sh [--once [--same-shape]] [--agent] openmpi|mpich ROOT PROGRAM" >&2; exit 2; }
mpi=$1 ROOT=$2 prog=$3
case $mpi in
    openmpi) pmi=pmix; export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;;
    mpich) pmi=pmi2;;
    *) echo "cr_slurm: bad MPI $mpi" >&2; exit 2;;
esac
[ -n "${CLUSTER_DIR:-}" ] && [ -n "${SLURM_CONF:-}" ] || { echo "cr_slurm: run me inside cluster.sh --slurm" >&2; exit 2; }
# the nodes' /tmp is their own scratch: what every node runs must live elsewhere
case "$ROOT/ $prog" in /tmp/*|*" /tmp/"*) echo "cr_slurm: $ROOT and $prog must not be under /tmp (node-local on the cluster)" >&2; exit 2;; esac
SH=$CLUSTER_DIR/shared/$mpi      # the shared file system: checkpoints, job output, the stop file
mkdir -p "$SH" || exit 1
name=$(basename "$prog")
unset MANA_RC MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_MPI MANA_NODE_AGENT MANA_AGENT_DIR
[ -z "$agent" ] || export MANA_NODE_AGENT=1      # sbatch passes the environment on to srun's ranks
step=0

say() { printf 'cr_slurm[%s %s %3ds]: %s\n' "$name" "$mpi" "$SECONDS" "$*"; }
fail() {
    say "FAIL: $*"
    squeue -a 2>&1 | head -n 20
    for f in "$SH"/*.out "$SH"/*.err; do [ -s "$f" ] && { echo "---- $f"; tail -n 30 "$f"; }; done
    exit 1
}
. "$(dirname -- "$(readlink -f -- "$0")")/../lib/wait.sh"     # wait_for
. "$(dirname -- "$(readlink -f -- "$0")")/agents.sh"              # one_connection_per_node
. "$(dirname -- "$(readlink -f -- "$0")")/ompi_startup.sh"        # ompi_retry
has() { grep -q -- "$2" "$1" 2>/dev/null; }

# The batch script, as a user writes it (docs/cluster.md): the coordinator on the job's first node,
# then srun of the runtime's command with the arguments given to sbatch.
cat > "$SH/job.sh" <<EOF
#!/bin/bash
set -u
"$ROOT/bin/mana_coordinator" -p 0 --verbose --log-file "$SH/coord-\$SLURM_JOB_ID.log" || exit 1
rc=\$HOME/.mana-slurm-\$SLURM_JOB_ID.rc
n=600
until grep -q '^Secret:' "\$rc" 2>/dev/null; do
    n=\$((n - 1)); [ \$n -gt 0 ] || { echo "no coordinator status file \$rc" >&2; exit 1; }; sleep 0.05
done
exec srun --mpi=$pmi "\$@"
EOF
chmod +x "$SH/job.sh"

# submit TAG SBATCH-OPTIONS... -- COMMAND...: the job id in $job, its output in $SH/TAG.out/.err
submit() {
    local tag=$1; shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift
    job=$(sbatch --parsable -J "$tag" -o "$SH/$tag.out" -e "$SH/$tag.err" "${opts[@]}" "$SH/job.sh" "$@") ||
        fail "sbatch of $tag refused"
    job=${job%%;*} cur_tag=$tag
    rc_file=$HOME/.mana-slurm-$job.rc   # what the job's coordinator writes; only mana_status here reads it
}
# retry_startup TAG: true (ompi_retry) when TAG's job is gone, lost to Open MPI's startup crash; its
# output is set aside (TAG.crash.out/.err) for the job submitted again
retry_startup() {
    job_gone "$job" && ompi_retry "$SH/$1.err" "$1: job $job" || return 1
    mv "$SH/$1.err" "$SH/$1.crash.err"
    mv "$SH/$1.out" "$SH/$1.crash.out" 2>/dev/null
    return 0
}
# status SECONDS ARGS...: mana_status of the current job, bounded
status() { local t=$1; shift; timeout "$t" env MANA_RC="$rc_file" "$ROOT/bin/mana_status" "$@"; }
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_gone() { [ -z "$(job_state "$1")" ]; }
# every rank RUNNING on the expected nodes: expect "node1 node1 node2 node2" (by rank)
ranks_on() {
    local got
    got=$(status 20 --list 2>/dev/null | awk 'NR > 1 && $4 == "RUNNING" { print $1, $2 }' | sort -n | awk '{ print $2 }' | tr '\n' ' ')
    [ "${got% }" = "$1" ]
}
placed() {   # placed WHAT EXPECTED: wait until the ranks run there, else fail with the list
    # first the coordinator's log (cheap to read, and a job that died is seen at once): every rank
    # registered
    registered_or_gone() { [ "$(grep -c ' registered: ' "$SH/coord-$job.log" 2>/dev/null)" = 4 ] || job_gone "$job"; }
    wait_for 90 registered_or_gone && ! job_gone "$job" || {
        retry_startup "$cur_tag" && return 2
        fail "$1: not every rank registered (job $job: '$(job_state "$job")')"
    }
    # then every rank RUNNING (one control connection, no JVM per look), and where: one list
    timeout 70 env MANA_RC="$rc_file" "$ROOT/bin/mana_coord_probe" --await-running 4 --timeout 60000 > /dev/null &&
        ranks_on "$2" || {
        status 20 --list
        fail "$1: ranks not RUNNING on '$2' (job $job: '$(job_state "$job")')"
    }
    say "$1: ranks RUNNING on $2 (job $job, coordinator $(sed -n 's/^Host: *//p' "$rc_file"))"
    [ -z "$agent" ] || one_connection_per_node "$1"
}
# submit_placed WHAT EXPECTED TAG SBATCH-OPTIONS... -- COMMAND...: submit, then placed; submitted once more
# when the job was lost to Open MPI's startup crash
submit_placed() {
    local what=$1 where=$2; shift 2
    submit "$@"
    placed "$what" "$where" && return 0
    submit "$@"
    placed "$what" "$where"        # (a second loss fails there: ompi_retry is once per test)
}
checkpoint_and_cancel() {
    local g=$1
    status 120 --checkpoint > "$SH/ckpt$g.status" 2>&1 || { cat "$SH/ckpt$g.status"; fail "checkpoint $g failed"; }
    has "$SH/ckpt$g.status" "checkpoint $g written" || { cat "$SH/ckpt$g.status"; fail "no 'checkpoint $g written'"; }
    scancel "$job" || fail "scancel $job"
    wait_for 60 job_gone "$job" || fail "job $job still there 60 s after scancel"
    local n
    n=$(ls "$SH"/ck/ckpt_rank_*/*_gen"$g".mana 2>/dev/null | wc -l)
    [ "$n" = 4 ] || fail "after checkpoint $g and scancel: $n images of generation $g, not 4"
    say "checkpoint $g written, job $job cancelled"
}

# 1. launch on node1, node2
ready_or_gone() { has "$SH/launch.out" '^ready' || job_gone "$job"; }
launch() {
    submit launch -N 2 --ntasks-per-node=2 -w node1,node2 -- "$ROOT/bin/mana_launch" --ckptdir "$SH/ck" "$prog" --stop-file "$SH/stop"
    wait_for 90 ready_or_gone && has "$SH/launch.out" '^ready'
}
launch || { retry_startup launch && launch; } || fail "no 'ready' from the launched job"
placed launch "node1 node1 node2 node2" || fail "launch: job $job died after its 'ready'"
checkpoint_and_cancel 1

if [ -z "$once" ]; then
    # 2. restart on two other nodes; checkpoint again there
    submit_placed "restart on node3,node4" "node3 node3 node4 node4" \
        restart1 -N 2 --ntasks-per-node=2 -w node3,node4 -- "$ROOT/bin/mana_restart" --restartdir "$SH/ck"
    checkpoint_and_cancel 2
    # 3. restart on node1, node2 placed 1+3 (an arbitrary layout through SLURM_HOSTFILE)
    printf 'node1\nnode2\nnode2\nnode2\n' > "$SH/hosts13"
    SLURM_HOSTFILE=$SH/hosts13 submit_placed "restart placed 1+3" "node1 node2 node2 node2" \
        restart2 -n 4 -w node1,node2 -m arbitrary -- -m arbitrary "$ROOT/bin/mana_restart" --restartdir "$SH/ck"
elif [ -n "$same_shape" ]; then
    # 2. restart on node3, node4, two ranks each again (a program whose node-local state, a shared-memory
    # window, must find its node's ranks together)
    submit_placed "restart on node3,node4" "node3 node3 node4 node4" \
        restart2 -N 2 --ntasks-per-node=2 -w node3,node4 -- "$ROOT/bin/mana_restart" --restartdir "$SH/ck"
else
    # 2. restart on node3, node4 placed 1+3: other nodes and another placement at once
    printf 'node3\nnode4\nnode4\nnode4\n' > "$SH/hosts13"
    SLURM_HOSTFILE=$SH/hosts13 submit_placed "restart on node3,node4 placed 1+3" "node3 node4 node4 node4" \
        restart2 -n 4 -w node3,node4 -m arbitrary -- -m arbitrary "$ROOT/bin/mana_restart" --restartdir "$SH/ck"
fi
echo 30 > "$SH/stop"
wait_for 120 job_gone "$job" || fail "the restarted job did not end after the stop file"
got=$(grep "done: " "$SH/restart2.out" | tail -n 1)
[ -n "$got" ] || fail "no 'done:' line from the last restart"
iters=$(echo "$got" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')

# every restarted rank registered with its new job's coordinator at once (the restored program's
# environment names the old job: SLURM_JOB_ID, so ~/.mana-slurm-OLD.rc)
for f in "$SH"/restart*.err; do
    grep -E 'restarted without a coordinator|cannot reach coordinator|cannot read status file' "$f" &&
        fail "$(basename "$f" .err): a rank did not register with its job's coordinator at the first try"
done
# the reference: the same program natively, same ranks and nodes, same number of iterations
# (srun -K: a task that dies ends the step at once; its peers would wait for it until the time-out)
native() { timeout 120 srun -K --mpi=$pmi -N 2 --ntasks-per-node=2 -w node1,node2 "$prog" --iters "$iters" > "$SH/native.out" 2>&1; }
native || { ompi_retry "$SH/native.out" "the native run" && native; } || fail "native run failed"
want=$(grep "done: " "$SH/native.out" | tail -n 1)
[ "$got" = "$want" ] || fail "results differ: runtime '$got', native '$want'"
say "PASS ($got)"
