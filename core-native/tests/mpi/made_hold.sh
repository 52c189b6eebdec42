#!/usr/bin/env bash
# made_hold.sh MPI PROG - a checkpoint, kill and restart between a collective constructor's real call and
# the new communicator's table entry (made_hold.c: MPI_Comm_split, MPI_Cart_create,
# MPI_Comm_create_group, one per round).  The runtime's test hook MANA_TEST_MADE_HOLD=1 holds each
# constructor there, after the real MPI made the communicator, until a checkpoint begins; the script then
# checkpoints and kills the job, restarts it, and does the same for the next round's constructor.  The
# communicator must work after each restart.  (Before COLL_MAKE, the checkpoint fell in between: the
# restart never made the communicator again and the program held a handle of the old lower half.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 made_hold
held_msg="mana: test: a collective made a communicator; held until a checkpoint begins"
# held N FILE: N of the hook's lines in FILE (both ranks held, for as many rounds as N/2)
held() { wait_for 60 lines_match "$1" "$held_msg" "$2"; }

coord
MANA_TEST_MADE_HOLD=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
log=$tmp/l.err out=$tmp/l.out
for k in 0 1 2; do
    check "round $k: both ranks held after the real constructor" "held 2 '$log'"
    await_running 2 60 || check "round $k: both ranks registered" false
    checkpoint_kill $((k + 1))
    check "round $k: the checkpoint began while they were held" "lines_match 2 'mana: test: the constructor goes on' '$log'"
    wait $job
    [ "$fails" -eq 0 ] || finish "$tmp"/*.out "$tmp"/*.err "$tmp/coord.log"
    coord
    MANA_TEST_MADE_HOLD=1 run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r$k.out" 2> "$tmp/r$k.err" &
    job=$!
    log=$tmp/r$k.err out=$tmp/r$k.out
    check "round $k: the communicator works after the restart" \
          "wait_for 60 grep -q 'made_hold round $k ok' '$out' && ! grep -q FAIL '$out'"
done
wait $job
rc=$?
check "the last restart finished ($rc)" '[ $rc -eq 0 ]'
check "the result (201 + 401 + 601)" "grep -q 'made_hold done: 3 rounds sum=1203' '$out'"
finish "$tmp"/*.out "$tmp"/*.err
