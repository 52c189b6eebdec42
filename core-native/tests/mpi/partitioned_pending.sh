#!/usr/bin/env bash
# partitioned_pending.sh MPI PROG - partitioned communication in flight at a checkpoint, for certain
# (partitioned.c with HOLD GO): at iteration 3 every rank has its main partitioned receive posted, its
# main partitioned send started with half of its partitions ready (nothing of it sent yet), and an early
# partitioned send whose message no receive has matched; rank 0 prints "held" and the ranks wait outside
# MPI.  The job is checkpointed (each rank's image must hold the four partitioned requests, and the
# drain must have buffered the early message), killed and restarted; then the ranks mark the remaining
# partitions ready and start the early receive, which must find its message after the restart; the
# result must be the native run's (its checksum over every received value).
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
run() { timeout 120 mpirun.mpich -n 2 "$@"; }
[ "$mpi" = mpich ] || { echo "partitioned communication is tested on MPICH only"; exit 1; }
tmp=$(mktemp -d /tmp/mana_partpend.XXXXXX)
export HOME=$tmp MANA_RC=$tmp/mana.rc
trap 'pkill -f "status-file $tmp/" 2>/dev/null; [ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"

touch "$tmp/go_native"
want=$(run "$prog" --iters 6 3 "$tmp/go_native" 2>&1 | grep "done:")
check "native run" '[ -n "$want" ]'

coord
MANA_DEBUG=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --iters 6 3 "$tmp/go" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
check "the partitioned operations are held" 'wait_for 60 grep -q "^held" "$tmp/l.out" && await_running 2 60'
timeout 60 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$tmp/s.out" 2>&1
wait $job
check "checkpoint written" 'grep -q written "$tmp/s.out"'
# every rank's image: its four partitioned requests (main and early, send and receive) and the early
# message its left neighbour sent, buffered by the drain
check "four requests and one buffered message per rank at the checkpoint" \
    '[ "$(grep -c "MPI state: .* 4 requests, 1 buffered messages" "$tmp/l.err")" = 2 ]'
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
