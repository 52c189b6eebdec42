#!/usr/bin/env bash
# exit_mpi.sh MPI EXITER - the exit of an MPI program under the runtime, at launch and after a restart:
# the program's exit status reaches mpirun, its own exit handler runs and its buffered output is out
# (the upper half's exit), and the lower half's exit handlers run too (the lower libc's exit, which the
# upper half's last handler calls; under MANA_DEBUG the lower half says so with the status).
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=2
case $mpi in
    openmpi) MPIRUN="mpirun.openmpi --oversubscribe -n $np"; export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;;
    mpich) MPIRUN="mpirun.mpich -n $np";;
    *) echo "bad MPI $mpi" >&2; exit 2;;
esac
tmp=$(mktemp -d /tmp/mana_exitmpi.XXXXXX) || exit 1
export HOME=$tmp MANA_RC=$tmp/mana.rc
trap 'pkill -f "status-file $tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
# expect WHAT CODE OUT ERR RC: with status 0 every rank ends by itself; with another status the launcher
# may kill the other ranks once the first has exited (Open MPI's mpirun does), so one rank is enough there
expect() {
    local what=$1 code=$2 out=$3 err=$4 got=$5 ranks
    ranks=$np; [ "$code" = 0 ] || ranks=1
    check "$what: exit status $code reaches mpirun (got $got)" '[ "$got" = "$code" ]'
    check "$what: the program's exit handler ran, its buffered line is out" 'grep -q "exiter: the program.s exit handler ran" "$out"'
    check "$what: the final result line" 'grep -q "exiter done: " "$out"'
    check "$what: the lower half's exit handlers ran with the status ($ranks rank(s) at least)" \
        '[ "$(grep -c "the lower half.s exit handlers run (exit status $code)" "$err")" -ge "$ranks" ]'
}

# 1. Launched, stopped, exits: with status 0 (both ranks), then with status 3.
echo 5 > "$tmp/stop1"
for code in 0 3; do
    coord
    MANA_DEBUG=1 timeout 120 $MPIRUN "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck1" "$prog" --stop-file "$tmp/stop1" $code \
        > "$tmp/a$code.out" 2> "$tmp/a$code.err"
    expect "launch, exit $code" $code "$tmp/a$code.out" "$tmp/a$code.err" $?
done

# 2. Checkpointed mid-run (it runs until told to stop), killed, restarted, stopped, exits.
coord
timeout 120 $MPIRUN "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" 3 \
    > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready "$np"
timeout 60 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$tmp/s.out" 2>&1
wait $job
check "checkpoint written" 'grep -q written "$tmp/s.out"'
coord
echo 5 > "$tmp/stop"
MANA_DEBUG=1 timeout 120 $MPIRUN "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r.out" 2> "$tmp/r.err"
expect "restart, exit 3" 3 "$tmp/r.out" "$tmp/r.err" $?
if [ $fails -ne 0 ]; then tail -n 5 "$tmp"/*.out "$tmp"/*.err; fi
echo "exit_mpi $mpi: $fails failure(s)"
[ $fails -eq 0 ]
