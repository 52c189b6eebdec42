#!/usr/bin/env bash
# ckpt_meets.sh MPI PROG NP 'TEXT' [ARGS...] - checkpoints of a job until one of them meets the case a
# test program is built to make likely, then checkpoint-and-kill and a restart to the native result.
# The job (PROG --stop-file F ARGS, mpitest.h) runs with MANA_DEBUG=1; the case is met when a rank's drain
# says TEXT (a fixed string of drain_rounds.c).  Checkpoints are taken while the job runs on until one has
# (at most 20: under load 8 were once not enough for groups' create_group), so the test cannot pass
# without exercising its case.  Used by:
#   rma_lockcont  3 ranks contend for one exclusive lock: "the one-sided gate lets passive-target epochs
#                 finish" (a rank inside MPI_Win_lock while the holder's put and unlock wait at the
#                 one-sided gate: such a checkpoint never completed; MPICH's lockcontention2)
#   groups        "inside a collective over a group" (groups.c: MPI_Comm_create_group, MPI_Intercomm_create
#                 with a partner held at a gate no count links to the call; MPICH's comm_group_rand,
#                 probe_intercomm)
#   nbc_wait      "ranks behind for 2 rounds" (nbc_wait.c: a rank running on through a wait for
#                 nonblocking collectives that the held ranks' progress engines must move; MPICH's
#                 coll/nonblocking3)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=$3 text=$4
shift 4
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" "$np" "$(basename -- "$prog")"
said() { grep -cF -- "$text" "$tmp/l.err"; }

coord
MANA_DEBUG=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" "$@" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready "$np"
gen=0 met=0
while [ $gen -lt 20 ] && [ $met -eq 0 ]; do
    gen=$((gen + 1))
    timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 90000 > "$tmp/c$gen.out" 2>&1
    grep -q "^checkpoint ok generation=$gen" "$tmp/c$gen.out" || { check "checkpoint $gen written" false; break; }
    [ "$(said)" -gt 0 ] && met=1
done
check "a checkpoint met the case: '$text' ($gen checkpoint(s))" '[ $met -eq 1 ]'
checkpoint_kill $((gen + 1))
wait $job
restart_to_end 60 "$@"
finish "$tmp"/*.out "$tmp"/*.err
