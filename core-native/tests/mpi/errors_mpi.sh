#!/usr/bin/env bash
# errors_mpi.sh MPI UNSUPPORTED_PROG PINGPONG_PROG PINGPONG_OTHER_MPI - what the runtime refuses, clearly:
#   - a call the runtime cannot checkpoint ends the job with the contract's message and a non-zero exit;
#   - a restart with another rank count names both counts;
#   - a restart of an image under the other MPI names both MPIs.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 unsup=$2 pp=$3
run() {   # run MPI NP ARGS...
    local m=$1 n=$2; shift 2
    if [ "$m" = openmpi ]; then timeout 120 mpirun.openmpi --oversubscribe -n "$n" "$@"
    else timeout 120 mpirun.mpich -n "$n" "$@"; fi
}
other=mpich; [ "$mpi" = mpich ] && other=openmpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d /tmp/mana_errmpi.XXXXXX)
export HOME=$tmp MANA_RC=$tmp/mana.rc
trap 'pkill -f "status-file $tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"

# 1. An unsupported call.
coord
run "$mpi" 1 "$ROOT/bin/mana_launch" --ckptdir "$tmp/u" "$unsup" > "$tmp/u.out" 2>&1   # one rank: no partner killed before its line is out
rc=$?
check "unsupported call: non-zero exit ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "unsupported call: the contract's message" \
    'grep -q "MANA: MPI_Open_port is not supported under checkpointing (dynamic processes cannot be checkpointed)" "$tmp/u.out"'
check "unsupported call: the program did not go on" '! grep -q "MPI_Open_port returned" "$tmp/u.out"'

# 1b. The launch preflight names it before anything runs; --force launches anyway.
check "preflight: bin/mana_lint is installed" '[ -x "$ROOT/bin/mana_lint" ]'
if [ -x "$ROOT/bin/mana_lint" ]; then
    coord
    run "$mpi" 1 "$ROOT/bin/mana_launch" --preflight --ckptdir "$tmp/p" "$unsup" > "$tmp/p.out" 2>&1
    rc=$?
    check "preflight: refused ($rc)" '[ $rc -eq 1 ]'
    check "preflight: MPI_Open_port named" 'grep -q "MPI_Open_port" "$tmp/p.out" && grep -q "cannot be checkpointed" "$tmp/p.out"'
    check "preflight: nothing launched" '! grep -q "MANA: MPI_Open_port is not supported" "$tmp/p.out"'
    coord
    MANA_PREFLIGHT=1 run "$mpi" 1 "$ROOT/bin/mana_launch" --force --ckptdir "$tmp/p2" "$unsup" > "$tmp/p2.out" 2>&1
    check "preflight --force: launched, and stopped at the call" 'grep -q "MANA: MPI_Open_port is not supported" "$tmp/p2.out"'
fi

# 2. A checkpoint of 2 ranks, restarted on 1 and on 3.
coord
run "$mpi" 2 "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$pp" --stop-file "$tmp/stop" > "$tmp/l.out" 2>&1 &
job=$!
ready 2
timeout 60 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$tmp/s.out" 2>&1
wait $job
check "checkpoint written" 'grep -q written "$tmp/s.out"'
coord
run "$mpi" 3 "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r3.out" 2>&1
rc=$?
check "3 ranks on a 2-rank checkpoint: refused ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
# rank 2 (no image) or ranks 0 and 1 (images of a 2-rank job) speak first; the launcher may end the
# others before they do: either names both counts
check "3 ranks on a 2-rank checkpoint: the counts named" \
    'grep -q -E "rank [0-2] of [23]; this job has 3 ranks" "$tmp/r3.out" && grep -q -E "the checkpoint has 2 rank\(s\)|rank [01] of 2; this job has 3 ranks" "$tmp/r3.out"'
coord
run "$other" 2 "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/ro.out" 2>&1
rc=$?
check "restart under $other: refused ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "restart under $other: both MPIs named" 'grep -q "written under MPI .$mpi.; this job was started by the launcher of .$other." "$tmp/ro.out"'
if [ $fails -ne 0 ] || [ -n "${VERBOSE:-}" ]; then grep -h -v "^\[" "$tmp"/r*.out; fi
echo "errors_mpi $mpi: $fails failure(s)"
[ $fails -eq 0 ]
