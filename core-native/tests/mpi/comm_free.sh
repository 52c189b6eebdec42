#!/usr/bin/env bash
# comm_free.sh MPI PROG - the runtime forgets freed dups between checkpoints (PROG: comm_free.c
# --dups-only, 2 ranks: 16 MPI_Comm_dup + MPI_Allreduce + MPI_Comm_free an iteration).  A freed
# communicator's entry stays until every rank of the call that made it is done with it (cfree.c); for a
# dup, a barrier posted by the free tells every member, and the entry goes without a checkpoint.  With
# MANA_DEBUG=1 every rank says at each checkpoint how many freed communicators that checkpoint had to
# forget, and how many objects its table holds.  After 25 iterations (400 dups per rank) and after 50,
# each checkpoint must have found fewer than 100 to forget (those whose barrier was still out) and a
# table of fewer than 60 objects; the second kills the job, and the restart must end with the native
# result.  (The six patterns of freeing, with checkpoints among them: mpi_openmpi_comm_free_3_cycles,
# mpi_mpich_comm_free_2_kill.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np commfree
export MANA_DEBUG=1

# per_rank GEN SED LIMIT: the GEN-th line of each rank's that SED reads a number from is below LIMIT
# (the ranks' lines of one checkpoint come together: lines (GEN-1)*np+1 .. GEN*np)
per_rank() {
    local n
    n=$(sed -n "$2" "$tmp/l.err" | awk -v g="$1" -v np=$np -v lim="$3" \
        'NR > (g - 1) * np && NR <= g * np && $1 < lim { k++ } END { print k + 0 }')
    [ "$n" = $np ]
}
forgot_few() { per_rank "$1" 's/.*freed communicators: \([0-9]*\) forgotten.*/\1/p' 100; }
table_small() { per_rank "$1" 's/.*MPI state: .* \([0-9]*\) objects in the table.*/\1/p' 60; }

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" --dups-only > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready $np
wait_for 120 grep -q '^reached 25' "$tmp/l.out" || { echo "FAIL: no 'reached 25'"; tail "$tmp/l.out"; exit 1; }
timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 90000 > "$tmp/p1.out" 2>&1
check "checkpoint 1 written" 'grep -q "^checkpoint ok generation=1" "$tmp/p1.out"'
check "checkpoint 1: every rank had fewer than 100 freed dups left to forget" 'forgot_few 1'
check "checkpoint 1: every rank's table under 60 objects" 'table_small 1'
wait_for 120 grep -q '^reached 50' "$tmp/l.out" || { echo "FAIL: no 'reached 50'"; tail "$tmp/l.out"; exit 1; }
checkpoint_kill 2
wait $job
check "checkpoint 2: every rank had fewer than 100 freed dups left to forget" 'forgot_few 2'
check "checkpoint 2: every rank's table under 60 objects" 'table_small 2'
restart_to_end 40 --dups-only
finish "$tmp"/*.out "$tmp"/*.err
