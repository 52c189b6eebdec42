#!/usr/bin/env bash
# groups.sh MPI PROG MODE - checkpoints that find a rank inside a collective over a group that no one
# communicator counts on all its members (groups.c: MODE create_group on 3 ranks, intercomm on 2).
# In both modes one rank waits inside MPI_Comm_create_group or MPI_Intercomm_create most of the time
# while its partner naps, then reaches a gate the drain holds it at.  The job runs with MANA_DEBUG=1, so
# a checkpoint whose settle rounds found such a wait says so ("inside a collective over a group",
# drain_rounds.c).  Checkpoints are taken while the job runs on until one of them has met that case (at
# most 8), then a checkpoint-and-kill and a restart to the end, which must give the native result.
# (Such a checkpoint never completed: the drain waited for the rank inside, which waited for the held
# one; MPICH's comm_group_rand and probe_intercomm.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 mode=$3
case $mode in create_group) np=3;; intercomm) np=2;; *) echo "usage: $0 MPI PROG create_group|intercomm" >&2; exit 2;; esac
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np groups
said() { grep -c "inside a collective over a group" "$tmp/l.err"; }

coord
MANA_DEBUG=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" "$mode" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready $np
gen=0 met=0
while [ $gen -lt 8 ] && [ $met -eq 0 ]; do
    gen=$((gen + 1))
    timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 90000 > "$tmp/c$gen.out" 2>&1
    grep -q "^checkpoint ok generation=$gen" "$tmp/c$gen.out" || { check "checkpoint $gen written" false; break; }
    [ "$(said)" -gt 0 ] && met=1
done
check "a checkpoint came while a rank waited inside a collective over a group ($gen checkpoint(s))" '[ $met -eq 1 ]'
checkpoint_kill $((gen + 1))
wait $job
restart_to_end 60 "$mode"
finish "$tmp"/*.out "$tmp"/*.err
