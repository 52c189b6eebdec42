#!/usr/bin/env bash
# fin_wait.sh MPI PROG - checkpoints while rank 0 waits inside MPI_Finalize for rank 1, which computes
# outside MPI (fin_wait.c): first a checkpoint the job goes on from, then checkpoint-and-kill and a restart.
# The runtime says (MANA_DEBUG) when MPI_Finalize starts waiting for its barriers: the script checkpoints
# only after that line.  Both ranks must finish, after the restart, with the sums they had.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 fin_wait
waits="mana: MPI_Finalize waits for .* freed communicators' barriers"

coord
MANA_DEBUG=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" "$tmp/go" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready 2
check "rank 0 waits inside MPI_Finalize" "wait_for 60 grep -q \"$waits\" '$tmp/l.err'"
timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 60000 > "$tmp/p1.out" 2>&1
check "a checkpoint while it waits (the job goes on)" 'grep -q "^checkpoint ok generation=1" "$tmp/p1.out"'
checkpoint_kill 2
wait $job
check "nothing finished before the restart" '! grep -q "fin_wait done" "$tmp/l.out"'
[ "$fails" -eq 0 ] || finish "$tmp"/*.out "$tmp"/*.err "$tmp/coord.log"
coord
touch "$tmp/go"
MANA_DEBUG=1 run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r.out" 2> "$tmp/r.err"
rc=$?
check "restart finished ($rc)" '[ $rc -eq 0 ]'
check "both ranks finalized (sum 6 each)" 'grep -q "^fin_wait done: rank 0 sum=6$" "$tmp/r.out" &&
                                           grep -q "^fin_wait done: rank 1 sum=6$" "$tmp/r.out"'
check "no failure" '! grep -q FAIL "$tmp/l.out" "$tmp/r.out"'
finish "$tmp"/*.out "$tmp"/*.err
