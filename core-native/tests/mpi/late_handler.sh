#!/usr/bin/env bash
# late_handler.sh MPI PROG - a library of the lower half that sets a SIGSEGV handler after MPI_Init (test
# hook MANA_TEST_LATE_LOWER_HANDLER=1: the lower half sets one right after its MPI_Init, at launch and at
# every restart, through its libc's sigaction as a library would).  It must become the lower half's action
# (lower-half/lh_sig.c, hook_sigaction), not the kernel's disposition: in the kernel it took every fault of
# the program's own code, whose handlers never ran again.
#   1. launch faults.c (each iteration faults in the program's code, caught by its own handlers),
#      checkpoint-and-kill: no line from the late handler, no failed check;
#   2. restart (the new lower half sets it again): to the end, the native result, no late-handler line;
#   3. restart from the same images, rank 0 sends from address 0x20 with SIGSEGV at SIG_DFL: a fault of the
#      MPI library, which the late handler, now the library's action, takes (its line; the rank dies).
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 late_handler
export MANA_TEST_LATE_LOWER_HANDLER=1
late='the late lower-half SIGSEGV handler ran'

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" crash "$tmp/crash" \
    > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready 2
check "the test hook set the late handler" 'grep -q "late SIGSEGV handler set in the lower half" "$tmp/l.err"'
checkpoint_kill 1
wait "$job"
check "launch: the program's own faults went to its handlers" '! grep -q "$late" "$tmp/l.out" "$tmp/l.err" && ! grep -q "FAIL" "$tmp/l.out"'
[ "$fails" -eq 0 ] || finish "$tmp/l.out" "$tmp/l.err"

restart_to_end 3
check "restart: the program's own faults went to its handlers" '! grep -q "$late" "$tmp/r.out" "$tmp/r.err"'

coord
echo mpi > "$tmp/crash"
echo 2 > "$tmp/stop"
run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/c.out" 2> "$tmp/c.err"
rc=$?
check "a fault inside MPI: the job failed ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "a fault inside MPI: the late handler, the library's action now, took it" 'grep -q "$late" "$tmp/c.err"'
finish "$tmp/l.out" "$tmp/l.err" "$tmp/r.out" "$tmp/r.err" "$tmp/c.out" "$tmp/c.err"
