#!/usr/bin/env bash
# rma_lockcont.sh MPI PROG - checkpoints of a job whose ranks contend for one exclusive lock (rma_lockcont.c).
# NP=3 ranks take rank 0's lock in turn; nearly always one holds it and the others wait inside
# MPI_Win_lock.  The job runs with MANA_DEBUG=1, so a rank whose settle rounds found a thread inside a
# one-sided call says so ("the one-sided gate lets passive-target epochs finish", drain_rounds.c).
# Checkpoints are taken while the job runs on until one of them has met that case (at most 8: on
# MPICH the first nearly always does; Open MPI's lock often waits elsewhere); then a checkpoint-and-kill
# and a restart to the end, which must give the native result (the counter, a read-modify-write under
# the lock, equals the job's total of iterations only if every lock stayed exclusive).
# (Such a checkpoint used to never complete: the holder's put and unlock waited at the one-sided gate
# the settle rounds closed, while the waiter stayed inside MPI_Win_lock: MPICH's lockcontention2.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=3
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np lockcont
said() { grep -c "the one-sided gate lets passive-target epochs finish" "$tmp/l.err"; }

coord
MANA_DEBUG=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready $np
gen=0 met=0
while [ $gen -lt 8 ] && [ $met -eq 0 ]; do
    gen=$((gen + 1))
    timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 90000 > "$tmp/c$gen.out" 2>&1
    grep -q "^checkpoint ok generation=$gen" "$tmp/c$gen.out" || { check "checkpoint $gen written" false; break; }
    [ "$(said)" -gt 0 ] && met=1
done
check "a checkpoint came while a rank was inside a one-sided call ($gen checkpoint(s))" '[ $met -eq 1 ]'
checkpoint_kill $((gen + 1))
wait $job
restart_to_end 60
finish "$tmp"/*.out "$tmp"/*.err
