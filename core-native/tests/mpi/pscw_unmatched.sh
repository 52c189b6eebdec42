#!/usr/bin/env bash
# pscw_unmatched.sh MPI PROG - a checkpoint asked while a general active-target epoch has no partner
# (pscw.c with MT_UNMATCHED_FILE): at iteration 3 rank 1 waits outside MPI before its MPI_Win_post, so
# rank 0's access epoch towards it and exposure epoch to it stay unmatched.  The checkpoint lets the
# program run on for MANA_EPOCH_WAIT (here 2) seconds, then is refused with a clear reason and leaves
# no image; the job runs on.  Once rank 1 is let go, a checkpoint succeeds, the job is killed and
# restarted, and it ends with the native run's result.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
case $mpi in
    openmpi) run() { timeout 120 mpirun.openmpi --oversubscribe -n 2 "$@"; }
             export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
             export OMPI_MCA_odls_base_sigkill_timeout=0;;   # checkpoint-and-kill: the job ends at once
    mpich) run() { timeout 120 mpirun.mpich -n 2 "$@"; };;
    *) echo "bad MPI $mpi" >&2; exit 2;;
esac
tmp=$(mktemp -d /tmp/mana_pscwun.XXXXXX)
export HOME=$tmp MANA_RC=$tmp/mana.rc
trap 'pkill -f "status-file $tmp/" 2>/dev/null; [ -n "${job:-}" ] && kill -KILL "$job" 2>/dev/null; [ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"

coord
touch "$tmp/unmatched"
MT_UNMATCHED_FILE=$tmp/unmatched MANA_EPOCH_WAIT=2 \
    run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
check "rank 1 holds before its post" 'wait_for 60 grep -q "^holding before post" "$tmp/l.out" && await_running 2 60'
timeout 60 "$ROOT/bin/mana_status" --checkpoint > "$tmp/s1.out" 2>&1
rc=$?
check "the checkpoint is refused ($rc)" '[ $rc -ne 0 ]'
check "the reason names the unmatched post/start epoch" 'grep -q "post/start\|MPI_Win_post" "$tmp/s1.out"'
check "no image was written" '! ls "$tmp"/ck/ckpt_rank_*/*.mana >/dev/null 2>&1'
check "the job still runs" 'kill -0 $job 2>/dev/null && await_running 2 30'
rm -f "$tmp/unmatched"      # rank 1 posts within 2 ms: the next checkpoint's drain finds the epochs matched
timeout 90 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$tmp/s2.out" 2>&1
check "a checkpoint once the epochs match" 'grep -q written "$tmp/s2.out"'
wait $job
job=
restart_to_end 0
finish "$tmp"/*.out "$tmp"/*.err "$tmp/coord.log"
