#!/usr/bin/env bash
# mpiio_pending.sh MPI PROG - MPI-IO operations pending at a checkpoint, for certain (mpiio_pending.c):
# a nonblocking collective read, a nonblocking independent write and a begun split collective write are
# in flight while every rank waits outside MPI; the job is checkpointed (the image's MPI state must count
# the two requests), killed and restarted; then the operations complete, and the file must be the native
# run's, byte for byte (its hash).
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
run() {   # run ARGS...: 2 ranks
    if [ "$mpi" = openmpi ]; then timeout 120 mpirun.openmpi --oversubscribe -n 2 "$@"
    else timeout 120 mpirun.mpich -n 2 "$@"; fi
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_odls_base_sigkill_timeout=0    # checkpoint-and-kill: the job ends at once (see cr_mpi.sh)
tmp=$(mktemp -d /tmp/mana_mpiiopend.XXXXXX)
export HOME=$tmp MANA_RC=$tmp/mana.rc
trap 'pkill -f "status-file $tmp/" 2>/dev/null; [ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mkdir -p "$tmp/native" "$tmp/run"

touch "$tmp/go_native"
want=$(run "$prog" "$tmp/native" "$tmp/go_native" 2>&1 | grep "done:")
check "native run" '[ -n "$want" ]'

coord
MANA_DEBUG=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" "$tmp/run" "$tmp/go" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
check "the operations are pending" 'wait_for 60 grep -q "^pending" "$tmp/l.out" && await_running 2 60'
timeout 60 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$tmp/s.out" 2>&1
wait $job
check "checkpoint written" 'grep -q written "$tmp/s.out"'
# every rank's image counts its two requests (the iread_at_all and the iwrite_at; the split collective
# keeps no request)
check "two pending requests per rank at the checkpoint" \
    '[ "$(grep -c "MPI state: .* 2 requests" "$tmp/l.err")" = 2 ]'
coord
run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r.out" 2>&1 &
job=$!
check "the restarted ranks are running" 'await_running 2 60'
touch "$tmp/go"
wait $job
rc=$?
got=$(grep "done:" "$tmp/r.out")
check "restart finished ($rc)" '[ $rc -eq 0 ]'
check "the native result ($got)" '[ -n "$got" ] && [ "$got" = "$want" ]'
if [ "$fails" -ne 0 ]; then
    for f in "$tmp"/*.out "$tmp"/*.err; do echo "---- $f"; tail -n 15 "$f"; done
    exit 1
fi
echo PASS
