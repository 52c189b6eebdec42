#!/usr/bin/env bash
# rma_pair.sh MPI PROG - where the windows of MPI_Win_allocate and MPI_Win_allocate_shared live, across a
# checkpoint-and-kill and a restart (PROG: rma_pair.c, 3 ranks, 3 windows each, one lock_all epoch on
# each across the checkpoint).  With MANA_DEBUG=1 every rank says where each new window's memory is
# (win.c): on Open MPI the MPI library's own, seen through an alias, at launch, and the same again after
# the restart (each rank copies its part into the new library's memory and the alias comes back at
# the same address); on MPICH the upper half's.  The restarted job must end with the native result:
# MPI_SHORT_INT pairs read back exactly, every ticket of a shared counter once, and what
# MPI_Win_shared_query answers for an empty part (NULL) as the library itself answers.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=3
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np rmapair
export MANA_DEBUG=1

coord
launch_job $np
if [ "$mpi" = openmpi ]; then
    check "launch: all 9 windows on Open MPI's memory, aliased" 'lines_match 9 "window on the MPI library.s (aliased) memory" "$tmp/l.err"'
else
    check "launch: all 9 windows on the upper half's memory" 'lines_match 9 "window on the upper half.s memory" "$tmp/l.err"'
fi
checkpoint_kill 1
wait $job
restart_to_end 40
if [ "$mpi" = openmpi ]; then
    check "restart: all 9 windows on Open MPI's new memory, aliased at the old addresses" \
        'lines_match 9 "on the MPI library.s memory again" "$tmp/r.err"'
    check "restart: no window fell back to the upper half" '! grep -q "has another layout now" "$tmp/r.err"'
fi
finish "$tmp"/*.out "$tmp"/*.err
