#!/usr/bin/env bash
# comm_free.sh MPI PROG - communicators the program frees, across checkpoints (PROG: comm_free.c, 3 ranks).
# MPI_Comm_free returns at once (a receive pending on the freed communicator, a partner still in its
# collectives on it); the runtime keeps the entry until every rank of the call that made it is done with
# it (cfree.c), and must not let the table grow: per iteration comm_free makes 24 dups (forgotten between
# checkpoints, once every member freed them) and 2 splits (forgotten by the next checkpoint).  With
# MANA_DEBUG=1 each rank says at each checkpoint how many objects its table holds and how many freed
# communicators the checkpoint forgot.  After 100 iterations (2,600 communicators made per rank) a
# checkpoint must find fewer than 150 objects per rank, after 200 the same; the second kills the job,
# and the restart must end with the native result.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=3
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np commfree
export MANA_DEBUG=1

# table_small GEN: every rank's "objects in the table" at checkpoint GEN (its GEN-th MPI state line) is below 150
table_small() {
    local n
    n=$(grep "MPI state:" "$tmp/l.err" | sed -n 's/.* \([0-9]*\) objects in the table.*/\1/p' | awk -v g="$1" -v np=$np \
        'NR > (g - 1) * np && NR <= g * np && $1 < 150 { k++ } END { print k + 0 }')
    [ "$n" = $np ]
}

coord
launch_job $np
wait_for 120 grep -q '^reached 100' "$tmp/l.out" || { echo "FAIL: no 'reached 100'"; tail "$tmp/l.out"; exit 1; }
timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 90000 > "$tmp/p1.out" 2>&1
check "checkpoint 1 written" 'grep -q "^checkpoint ok generation=1" "$tmp/p1.out"'
check "checkpoint 1: every rank's table under 150 objects" 'table_small 1'
check "checkpoint 1: the split calls forgotten by every rank" \
    '[ "$(grep "freed communicators:" "$tmp/l.err" | sed -n "s/.*communicators: \([0-9]*\) forgotten.*/\1/p" | awk "\$1 >= 100" | wc -l)" = $np ]'
wait_for 120 grep -q '^reached 200' "$tmp/l.out" || { echo "FAIL: no 'reached 200'"; tail "$tmp/l.out"; exit 1; }
checkpoint_kill 2
wait $job
check "checkpoint 2: every rank's table under 150 objects" 'table_small 2'
restart_to_end 40
check "restart: no rank failed" '! grep -q "FAIL" "$tmp/r.out"'
finish "$tmp"/*.out "$tmp"/*.err
