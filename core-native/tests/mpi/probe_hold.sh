#!/usr/bin/env bash
# probe_hold.sh MPI PROG - a message the drain buffers while rank 0's probe or receive has already looked
# in the runtime's buffer and not yet reached the real MPI (probe_hold.c).  The runtime's test hook
# MANA_TEST_BUFFER_HOLD=1 holds each of rank 0's calls there (MPI_Probe, MPI_Mprobe, MPI_Irecv's post)
# until a checkpoint's point-to-point drain has run: a checkpoint for the first two, a checkpoint-and-kill
# and a restart for the third.  Each call must then take rank 1's message from the buffer.
# (The probe used to spin in the real MPI for good: mpi_openmpi_threads_3_cycles hung once after a
# restart with a worker thread in MPI_Probe and its message in the buffer.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 probe_hold
held() { wait_for 60 grep -q -- "mana: test: $1 found no buffered message" "$tmp/l.err"; }

coord
MANA_TEST_BUFFER_HOLD=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
gen=0
for call in MPI_Probe MPI_Mprobe; do
    check "$call held before its excursion" "held $call"
    [ $gen -eq 0 ] && { await_running 2 60 || check "both ranks registered" false; }
    gen=$((gen + 1))
    timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 90000 > "$tmp/c$gen.out" 2>&1
    check "checkpoint $gen written" 'grep -q "^checkpoint ok generation=$gen" "$tmp/c$gen.out"'
    check "round $((gen - 1)) took the buffered message" "wait_for 60 grep -q 'probe_hold round $((gen - 1)) ok' '$tmp/l.out'"
    # a call that missed its message waits for good: end the job now rather than at the time-outs
    [ "$fails" -eq 0 ] || { kill $job 2>/dev/null; wait $job; finish "$tmp"/*.out "$tmp"/*.err; }
done
check "the receive held before its post" "held 'a receive'"
checkpoint_kill 3
wait $job
coord
MANA_TEST_BUFFER_HOLD=1 run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r.out" 2> "$tmp/r.err"
rc=$?
check "restart finished ($rc)" '[ $rc -eq 0 ]'
check "round 2 took the buffered message after the restart" 'grep -q "probe_hold round 2 ok" "$tmp/r.out"'
check "the result (1000 + 1007 + 1014)" 'grep -q "probe_hold done: 3 rounds sum=3021" "$tmp/r.out"'
finish "$tmp"/*.out "$tmp"/*.err
