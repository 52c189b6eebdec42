#!/usr/bin/env bash
# cr_nodes.sh - an MPI job across nodes started by the MPI's own launcher (Open MPI's mpirun --host,
# MPICH's mpiexec -hosts) through a remote-shell agent, a node lost mid-run, and the job restarted from
# its last committed checkpoint on the remaining nodes (run inside `cluster.sh --nodes 3`, no Slurm).
#
#   cluster.sh --nodes 3 -- cr_nodes.sh MPI ROOT PROGRAM
#
#   1. mana_coordinator on node1 (~/.mana.rc, Host: node1); from the head, the launcher starts 2 ranks
#      on node1 and 2 on node2 (its daemons through rsh_agent, which enters the node's namespaces)
#   2. checkpoint 1 (committed); checkpoint 2 is asked forked (Open MPI) or unforked (MPICH) and held
#      while it is being written (every rank's writer waits: MANA_TEST_WRITER_HOLD), and node2 is killed
#      then (every process of it SIGKILLed, as at a power loss); the launcher ends the job; checkpoint 2
#      is not committed anywhere and generation 1 is intact on every rank (only generation 2's
#      unfinished *.tmp lie beside it)
#   3. restarts that must be refused, each with a clear line, leaving the images as they were: 2 ranks
#      for a checkpoint of 4; a node (node3) that does not see the checkpoint directory (a tmpfs over
#      it in node3's mount namespace, as a node where the shared file system is not mounted)
#   4. the job's coordinator gone (killed, its status file left behind): the launcher restarts the 4
#      ranks on node1 and node3 (2 + 2) from generation 1; every rank says it was restarted without a
#      coordinator and runs on, retrying (MANA_COORD_RETRY_MAX=1), the images untouched; a new
#      coordinator of the same status file on node1 takes every rank back, and a checkpoint through it
#      commits generation 2 (over the lost one's *.tmp); stop; the result equals a native run of the
#      same number of iterations there
# --agent: every run with MANA_NODE_AGENT=1: each node's ranks reach the coordinator through one node
# agent (elected among them: OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS), one connection per node at
# launch; node2's agent dies with it in step 2 (the coordinator sees the group go mid-checkpoint).  At
# step 4's restart the agents find no coordinator and leave, and each rank follows the status file to
# the next coordinator by itself, as the design says (architecture.md §8.1).
# Every wait is bounded and waits for an event (a line, a file, a process's end); exit 0 = PASS.
set -u
node_agent=
[ "${1:-}" = --agent ] && { node_agent=1; shift; }
[ $# = 3 ] || { echo "usage: cr_nodes.sh [--agent] openmpi|mpich ROOT PROGRAM" >&2; exit 2; }
mpi=$1 ROOT=$2 prog=$3
[ -n "${CLUSTER_DIR:-}" ] || { echo "cr_nodes: run me inside cluster.sh" >&2; exit 2; }
case "$ROOT/ $prog" in /tmp/*|*" /tmp/"*) echo "cr_nodes: $ROOT and $prog must not be under /tmp (node-local on the cluster)" >&2; exit 2;; esac
agent=$CLUSTER_DIR/bin/rsh_agent
launch() {   # launch HOSTS COMMAND...: NP ranks (default 4) placed as HOSTS says (host:slots,...)
    local hosts=$1; shift
    case $mpi in
        openmpi) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                 timeout 180 mpirun.openmpi --mca plm_rsh_agent "$agent" --host "$hosts" -n "${NP:-4}" "$@";;
        mpich)   timeout 180 mpiexec.mpich -launcher ssh -launcher-exec "$agent" -hosts "$hosts" -n "${NP:-4}" "$@";;
    esac
}
case $mpi in openmpi|mpich) ;; *) echo "cr_nodes: bad MPI $mpi" >&2; exit 2;; esac
SH=$CLUSTER_DIR/shared/nodes-$mpi
mkdir -p "$SH" || exit 1
name=$(basename "$prog")
unset MANA_RC MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_MPI MANA_NODE_AGENT MANA_AGENT_DIR
[ -z "$node_agent" ] || export MANA_NODE_AGENT=1
rc_file=$HOME/.mana.rc
launcher_pid=

say() { printf 'cr_nodes[%s %s %3ds]: %s\n' "$name" "$mpi" "$SECONDS" "$*"; }
fail() {
    say "FAIL: $*"
    for f in "$SH"/*.out "$SH"/*.err "$SH"/*.log; do [ -s "$f" ] && { echo "---- $f"; tail -n 30 "$f"; }; done
    [ -n "$launcher_pid" ] && kill -KILL "$launcher_pid" 2>/dev/null
    exit 1
}
. "$(dirname -- "$(readlink -f -- "$0")")/../lib/wait.sh"     # wait_for
. "$(dirname -- "$(readlink -f -- "$0")")/agents.sh"              # one_connection_per_node
has() { grep -q -- "$2" "$1" 2>/dev/null; }
status() { local t=$1; shift; timeout "$t" env MANA_RC="$rc_file" "$ROOT/bin/mana_status" "$@"; }
alive() { kill -0 "$launcher_pid" 2>/dev/null; }

coordinator() {   # coordinator TAG: a new one on node1, logging every rank event to $SH/coord-TAG.log
    rm -f "$rc_file"
    on node1 "$ROOT/bin/mana_coordinator" -p 0 --verbose --log-file "$SH/coord-$1.log" > /dev/null 2> "$SH/coord-$1.err" ||
        fail "mana_coordinator did not start on node1"
    wait_for 60 has "$rc_file" '^Secret:' || fail "no status file $rc_file"
    coord_log=$SH/coord-$1.log
}
ranks_on() {
    local got
    got=$(status 20 --list 2>/dev/null | awk 'NR > 1 && $4 == "RUNNING" { print $1, $2 }' | sort -n | awk '{ print $2 }' | tr '\n' ' ')
    [ "${got% }" = "$1" ]
}
placed() {   # placed WHAT EXPECTED: every rank registered and RUNNING where expected
    registered() { [ "$(grep -c ' registered: ' "$coord_log" 2>/dev/null)" = 4 ] || ! alive; }
    wait_for 90 registered && alive || fail "$1: not every rank registered"
    # every rank RUNNING (one control connection, no JVM per look), and where: one list
    timeout 70 env MANA_RC="$rc_file" "$ROOT/bin/mana_coord_probe" --await-running 4 --timeout 60000 > /dev/null &&
        ranks_on "$2" || { status 20 --list; fail "$1: ranks not RUNNING on '$2'"; }
    say "$1: ranks RUNNING on $2 (coordinator $(sed -n 's/^Host: *//p' "$rc_file"))"
}

# 1. launch on node1 and node2 from the head
coordinator 1
# every image's writer waits for this file before it writes the memory: there for checkpoint 1, removed
# for checkpoint 2, whose writers die with their node or rank
export MANA_TEST_WRITER_HOLD=$SH/hold
touch "$SH/hold"
# a rank without a coordinator tries again after 0.25 s, 0.5 s, then every second (step 4)
export MANA_COORD_RETRY_MAX=1
launch node1:2,node2:2 "$ROOT/bin/mana_launch" --ckptdir "$SH/ck" "$prog" --stop-file "$SH/stop" \
    > "$SH/launch.out" 2> "$SH/launch.err" &
launcher_pid=$!
ready() { has "$SH/launch.out" '^ready' || ! alive; }
wait_for 90 ready && alive || fail "no 'ready' from the launched job"
placed launch "node1 node1 node2 node2"
[ -z "$node_agent" ] || one_connection_per_node launch

# 2. checkpoint 1, then node2 dies
status 120 --checkpoint > "$SH/ckpt1.status" 2>&1 || { cat "$SH/ckpt1.status"; fail "checkpoint 1 failed"; }
has "$SH/ckpt1.status" "checkpoint 1 written" || fail "no 'checkpoint 1 written'"
sum1=$(cat "$SH"/ck/ckpt_rank_*/*_gen1.mana | md5sum)
rm -f "$SH/hold"
# both ways an image is written, one per MPI: Open MPI's by a writer process while the program runs
# (forked), MPICH's by each rank itself with its program stopped (unforked)
ck2=--forked; [ "$mpi" = mpich ] && ck2=--unforked
status 30 --checkpoint $ck2 --no-wait > "$SH/ckpt2.status" 2>&1 || { cat "$SH/ckpt2.status"; fail "checkpoint 2 did not start"; }
writing() { [ "$(ls "$SH"/ck/ckpt_rank_*/*_gen2.mana.tmp 2>/dev/null | wc -l)" = 4 ]; }
wait_for 60 writing || fail "checkpoint 2 is not being written on every rank"
node_kill node2 || fail "node_kill node2"
gone() { ! alive; }
wait_for 120 gone || fail "the launcher did not end after node2 was lost"
wait "$launcher_pid"
say "node2 killed while checkpoint 2 ($ck2) was being written; the launcher ended (status $?)"
launcher_pid=
n=$(ls "$SH"/ck/ckpt_rank_*/*_gen1.mana 2>/dev/null | wc -l)
[ "$n" = 4 ] || fail "$n images of generation 1, not 4"
[ "$(cat "$SH"/ck/ckpt_rank_*/*_gen1.mana | md5sum)" = "$sum1" ] || fail "generation 1 changed"
for f in "$SH"/ck/ckpt_rank_*/*_gen1.mana; do
    out=$("$ROOT/bin/lower-half" --check "$f" 2>&1) || fail "generation 1 is damaged: $out"
done
others=$(find "$SH/ck" -type f ! -name '*_gen1.mana' ! -name '*_gen2.mana.tmp')
[ -z "$others" ] || fail "files beside generation 1 and generation 2's unfinished *.tmp: $others"
say "checkpoint 2 was not committed; generation 1 intact on every rank"
# (through agents: node2's agent connection closing, or, when the kill reached a rank first, the agent
# reporting that rank's disconnect: either aborts the checkpoint everywhere)
if [ -n "$node_agent" ]; then
    lost='checkpoint 2 aborted: .*\(rank group of 2 ranks .* disconnected\|disconnected from the node agent\)'
    has "$coord_log" "$lost" || fail "the coordinator did not hear of node2's loss through its agent during checkpoint 2"
    say "through node2's agent: $(grep -o 'checkpoint 2 aborted: .*' "$coord_log" | head -n 1)"
fi
unset MANA_TEST_WRITER_HOLD

# 3. restarts that are refused and change nothing
sum_before=$(cat "$SH"/ck/ckpt_rank_*/*.mana | md5sum)
coordinator 2
NP=2 launch node1:2 "$ROOT/bin/mana_restart" --restartdir "$SH/ck" > "$SH/fewer.out" 2> "$SH/fewer.err" &&
    fail "a restart with 2 ranks of a 4-rank checkpoint was not refused"
has "$SH/fewer.err" 'is rank [01] of 4; this job has 2 ranks (restart with the rank count of the checkpoint)' ||
    fail "a restart with 2 ranks of 4 was refused without saying why"
on node3 mount -t tmpfs -o size=1m,mode=0700 nothing "$SH" || fail "cannot hide $SH on node3"
launch node1:2,node3:2 "$ROOT/bin/mana_restart" --restartdir "$SH/ck" > "$SH/hidden.out" 2> "$SH/hidden.err" &
launcher_pid=$!
# node3's two ranks refuse at once; node1's wait inside the MPI's start-up for peers that will not
# come, and MPICH's mpiexec does not end the job for a rank's exit status 1 (srun does with
# --kill-on-bad-exit): the job is ended here once both lines are out, as a user would
both_said() { [ "$(grep -c "restart directory $SH/ck does not exist" "$SH/hidden.err" 2>/dev/null)" = 2 ]; }
wait_for 60 both_said || { on node3 umount "$SH"; fail "node3's ranks did not say they cannot see the checkpoint directory"; }
kill -TERM "$launcher_pid" 2>/dev/null
wait_for 60 gone || fail "the launcher of the refused restart did not end on SIGTERM"
wait "$launcher_pid" 2>/dev/null
launcher_pid=
on node3 umount "$SH" || fail "cannot unmount the tmpfs over $SH on node3"
[ "$(cat "$SH"/ck/ckpt_rank_*/*.mana | md5sum)" = "$sum_before" ] || fail "a refused restart changed the images"
others=$(find "$SH/ck" -type f ! -name '*_gen1.mana' ! -name '*_gen2.mana.tmp')
[ -z "$others" ] || fail "files beside generation 1 after the refused restarts: $others"
say "refused with a clear line, images unchanged: 2 ranks for 4; node3 without the checkpoint directory"

# 4. restart on the remaining nodes, the job's coordinator gone (as when its node was lost too)
pkill -KILL -f -- "--log-file $SH/coord-2.log" || fail "no coordinator 2 to kill"
coord_gone() { ! pgrep -f -- "--log-file $SH/coord-2.log" > /dev/null; }
wait_for 30 coord_gone || fail "coordinator 2 did not end on SIGKILL"
has "$rc_file" '^Secret:' || fail "coordinator 2's status file went with it"
launch node1:2,node3:2 "$ROOT/bin/mana_restart" --restartdir "$SH/ck" > "$SH/restart.out" 2> "$SH/restart.err" &
launcher_pid=$!
unprotected() { [ "$(grep -c 'restarted without a coordinator' "$SH/restart.err" 2>/dev/null)" = 4 ] || ! alive; }
wait_for 90 unprotected && alive || fail "the ranks restarted without their coordinator did not all say so"
[ "$(cat "$SH"/ck/ckpt_rank_*/*.mana | md5sum)" = "$sum_before" ] || fail "the restart without a coordinator changed the images"
say "restarted on node1,node3 with the coordinator gone: every rank says so and runs on; images unchanged"
coordinator 3
placed "taken back by a new coordinator" "node1 node1 node3 node3"
# protected again: a checkpoint through it commits generation 2 over the lost one's leftovers (the
# restored ranks' environment still names the writer's hold file of the launch: it must exist, or
# each writer waits out its 60 s)
touch "$SH/hold"
status 120 --checkpoint > "$SH/ckpt3.status" 2>&1 || { cat "$SH/ckpt3.status"; fail "the checkpoint after the take-back failed"; }
has "$SH/ckpt3.status" "checkpoint 2 written" || fail "no 'checkpoint 2 written' after the take-back"
[ "$(ls "$SH"/ck/ckpt_rank_*/*_gen2.mana 2>/dev/null | wc -l)" = 4 ] && ! ls "$SH"/ck/ckpt_rank_*/*.tmp > /dev/null 2>&1 ||
    fail "generation 2 is not 4 committed images with no *.tmp left"
echo 30 > "$SH/stop"
wait "$launcher_pid" || fail "the restarted job failed"
launcher_pid=
got=$(grep "done: " "$SH/restart.out" | tail -n 1)
[ -n "$got" ] || fail "no 'done:' line from the restarted job"
iters=$(echo "$got" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
# the reference: natively on one node (the program's result does not depend on the placement; the
# launcher's own start on one node is quicker than through the remote shell)
case $mpi in
    openmpi) on node3 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                 timeout 120 mpirun.openmpi --oversubscribe -n 4 "$prog" --iters "$iters";;
    mpich) on node3 timeout 120 mpiexec.mpich -n 4 "$prog" --iters "$iters";;
esac > "$SH/native.out" 2>&1 || fail "native run failed"
want=$(grep "done: " "$SH/native.out" | tail -n 1)
[ "$got" = "$want" ] || fail "results differ: runtime '$got', native '$want'"
say "PASS ($got)"
