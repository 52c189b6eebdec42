#!/usr/bin/env bash
# preinit.sh MPI PROG - a checkpoint taken before the program's first MPI call.  Every rank of PROG (an
# mpitest.h program) holds before MPI_Init (MT_PREINIT_HOLD_FILE); once all say so and have registered, the
# job is checkpointed and killed.  Each image must name the MPI the rank was launched with (the lower half
# runs it, although the program has not called it yet), the restart must go on into MPI_Init and the
# program's run, and the result must be a native run's for the same number of iterations.
# The restart sequence is held before it reaches the coordinator (MANA_TEST_RESTART_HOLD, set at launch)
# until every rank says its first MPI call waits for the sequence to end (MANA_DEBUG=1): such a program runs
# on as soon as it is restored, and its MPI_Init must not overtake the sequence.
# (An image written there once said "mpi none": the restart ran the plain lower half, and the program's
# MPI_Init then ended the job with "the runtime's lower half runs no MPI".  Found with MPICH's own test
# suite, a checkpoint at a random moment of a short program.  Then the program's MPI_Init did overtake
# the sequence, whose MPI restart hook replayed onto the program's new MPI state mid-run: a hang in
# MPI_Waitall now and then, or "MPI_Comm_group() ... after MPI_FINALIZE" at the end; 2 in 26 runs on Open
# MPI under load.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np preinit

coord
: > "$tmp/hold"
MT_PREINIT_HOLD_FILE=$tmp/hold MANA_TEST_RESTART_HOLD=$tmp/rhold run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" \
    > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
holding() { [ "$(grep -c '^holding before MPI_Init' "$tmp/l.out")" = $np ]; }
wait_for 60 holding || { echo "FAIL: not every rank said it holds before MPI_Init"; tail "$tmp/l.out" "$tmp/l.err"; exit 1; }
await_running $np 60 || { echo "FAIL: not every rank registered"; exit 1; }
checkpoint_kill 1                 # before MPI_Init
wait $job
rm -f "$tmp/hold"
for r in $(seq 0 $((np - 1))); do
    img=$(ls "$tmp"/ck/ckpt_rank_$r/*.mana 2>/dev/null | tail -n 1)
    "$ROOT/bin/lower-half" --check "$img" > "$tmp/check$r.out" 2>&1
    check "rank $r's image names $mpi" 'grep -q ", mpi $mpi," "$tmp/check$r.out"'
done
waiting() { [ "$(grep -c "the first MPI call waits for the restart to end" "$tmp/r.err")" = $np ]; }
while_restarting() {
    wait_for 60 waiting
    check "every rank's MPI_Init waited for the restart sequence" waiting
    rm -f "$tmp/rhold"
}
: > "$tmp/rhold"
export MANA_DEBUG=1
restart_to_end 20
unset MANA_DEBUG
check "no rank held after the restart" '[ "$(grep -c "^holding" "$tmp/r.out")" = 0 ]'
finish "$tmp"/*.out "$tmp"/*.err
