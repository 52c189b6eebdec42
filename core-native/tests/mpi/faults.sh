#!/usr/bin/env bash
# faults.sh MPI PROG - a rank whose own code faults after a restart, with no handler of its own for the
# signal (faults.c, "crash FILE"), while the MPI library in the lower half has one (UCX: SIGSEGV;
# Open MPI: SIGSEGV and SIGABRT).  The library's handler must not run for it: on the program's TLS it
# faulted again inside itself (UCX) or printed its report from the wrong half (Open MPI), and the core
# showed that second fault.  The rank must die of the signal, at its own instruction, with the runtime's
# one line naming the address (lower-half/lh_sig.c).
#   1. launch, checkpoint-and-kill;
#   2. restart, rank 0 writes at 0x18 (SIGSEGV, default action);
#   3. restart from the same images, rank 0 stores into a mapped empty file (SIGBUS, a signal the program
#      never touched: before, the library's handler ran for it on the program's TLS);
#   4. restart from the same images, rank 0 calls abort() (SIGABRT, default action);
#   5. restart from the same images, rank 0 sends from address 0x20: the fault is inside the MPI library,
#      and its handler must run for it (its report names 0x20), not the program's default;
#   6. the same with a SIGSEGV handler of the program's: as natively (where it replaced the library's) the
#      program's handler must get the fault, on its own TLS (faults.c checks; it exits 42).
# Where the kernel writes cores into the working directory (core_pattern a plain name), the cores of
# cases 2 and 3 must show the fault at its address; elsewhere those checks say they are skipped.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 faults
cd "$tmp" || exit 1
ulimit -c unlimited 2>/dev/null || ulimit -c 0
lib_banner='Process received signal|Caught signal'      # Open MPI's and UCX's reports of a fault

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" crash "$tmp/crash" \
    > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready 2
checkpoint_kill 1
wait $job
check "no failure before the checkpoint" '! grep -q FAIL "$tmp/l.out"'
[ "$fails" -eq 0 ] || finish "$tmp"/*.out "$tmp"/*.err "$tmp/coord.log"

# crash_restart HOW: restart from generation 1, rank 0 crashing HOW once 2 more iterations are done
crash_restart() {
    coord
    echo "$1" > "$tmp/crash"
    echo 2 > "$tmp/stop"
    rm -f "$tmp"/core*
    run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/$1.out" 2> "$tmp/$1.err"
    rc=$?
    cat "$tmp/$1.out" "$tmp/$1.err" > "$tmp/$1.all"
}

crash_restart segv
check "segv: the job failed ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "segv: rank 0 got there after the restart" 'grep -q "^faults: crashing (SIGSEGV at 0x18)" "$tmp/segv.out"'
check "segv: the runtime's line names the program's fault at 0x18" \
    'grep -Eq "^mana: rank 0 \(pid [0-9]+\): SIGSEGV at address 0x18, pc 0x[0-9a-f]+, in the program, which has no handler for it" "$tmp/segv.all"'
check "segv: the launcher saw the rank die of SIGSEGV" 'grep -Eq "signal 11|Segmentation fault|EXIT CODE: 139" "$tmp/segv.all"'
check "segv: no MPI library handler ran for it" '! grep -Eq "$lib_banner" "$tmp/segv.all"'
check "segv: the program's handlers worked until then" '! grep -q "faults: FAIL" "$tmp/segv.out"'
# core_shows HOW ADDR: the core of the last crash has its fault at ADDR, where the kernel wrote one here
core_shows() {
    local core got want=$2
    core=$(ls "$tmp"/core* 2>/dev/null | head -n 1)
    if [ -z "$core" ]; then
        echo "skipped: $1: the core's fault address (no core in the working directory; core_pattern" \
             "'$(cat /proc/sys/kernel/core_pattern 2>/dev/null)', ulimit -c $(ulimit -c))"
        return
    fi
    got=$(gdb -batch -ex 'p $_siginfo._sifields._sigfault.si_addr' "$ROOT/bin/lower-half-$mpi" "$core" 2>/dev/null | tail -n 1)
    check "$1: the core shows the program's own fault at $2 ($got)" '[[ "$got" == *"(void *) $want" ]]'
}
core_shows segv 0x18

crash_restart bus
addr=$(sed -n 's/^faults: crashing (SIGBUS at \(0x[0-9a-f]*\))$/\1/p' "$tmp/bus.out")
check "bus: the job failed ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "bus: rank 0 got there after the restart ($addr)" '[ -n "$addr" ]'
check "bus: the runtime's line names the program's fault at $addr" \
    'grep -Eq "^mana: rank 0 \(pid [0-9]+\): SIGBUS at address $addr, pc 0x[0-9a-f]+, in the program, which has no handler for it" "$tmp/bus.all"'
check "bus: the launcher saw the rank die of SIGBUS" 'grep -Eq "signal 7|Bus error|EXIT CODE: 135" "$tmp/bus.all"'
check "bus: no MPI library handler ran for it" '! grep -Eq "$lib_banner" "$tmp/bus.all"'
core_shows bus "$addr"

crash_restart abort
check "abort: the job failed ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "abort: rank 0 got there after the restart" 'grep -q "^faults: crashing (abort)" "$tmp/abort.out"'
check "abort: the runtime's line names the program's SIGABRT" \
    'grep -Eq "^mana: rank 0 \(pid [0-9]+\): SIGABRT sent by pid [0-9]+, in the program, which has no handler for it" "$tmp/abort.all"'
check "abort: the launcher saw the rank die of SIGABRT" 'grep -Eq "signal 6|Aborted|EXIT CODE: 134" "$tmp/abort.all"'
check "abort: no MPI library handler ran for it" '! grep -Eq "$lib_banner" "$tmp/abort.all"'

crash_restart mpi
check "mpi: the job failed ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "mpi: rank 0 got there after the restart" 'grep -q "^faults: crashing (MPI_Send from 0x20)" "$tmp/mpi.out"'
check "mpi: the MPI library's own handler reported its fault at 0x20" \
    'grep -Eq "$lib_banner" "$tmp/mpi.all" && grep -Eq "address:? 0x20([^0-9a-f]|$)" "$tmp/mpi.all"'
check "mpi: not taken for the program's" '! grep -q "in the program, which has no handler" "$tmp/mpi.all"'

crash_restart mpi_handled
# (Hydra reports the status of the rank it ended last: now and then rank 1's SIGKILL, 9, after rank 0's 42)
check "mpi_handled: the program's handler got the fault inside MPI, on its own TLS, and exited 42 ($rc)" \
    'grep -q "^faults: the program.s handler got the fault inside MPI at 0x20, on its own TLS" "$tmp/mpi_handled.all" &&
     { [ $rc -eq 42 ] || { [ $rc -eq 9 ] && grep -q "EXIT CODE: 9" "$tmp/mpi_handled.all"; }; }'
check "mpi_handled: no MPI library handler ran for it" '! grep -Eq "$lib_banner" "$tmp/mpi_handled.all"'
finish "$tmp"/*.out "$tmp"/*.err
