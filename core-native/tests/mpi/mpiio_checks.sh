#!/usr/bin/env bash
# mpiio_checks.sh MPI MPIIO_PROG - MPI-IO files are the user's data: a restart never creates, truncates
# or rewrites them, and refuses, clearly, when the files open at the checkpoint are not there:
#   - a file replaced by a copy (another inode): refused, naming the file and MANA_IO_REPLACED; no file changed;
#   - a file missing: refused, naming it; the file is not created;
#   - both put right (the copy accepted with MANA_IO_REPLACED=1): the job finishes with the native result.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
run() {   # run NP ARGS...
    local n=$1; shift
    if [ "$mpi" = openmpi ]; then timeout 120 mpirun.openmpi --oversubscribe -n "$n" "$@"
    else timeout 120 mpirun.mpich -n "$n" "$@"; fi
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_odls_base_sigkill_timeout=0    # checkpoint-and-kill: the job ends at once (see cr_mpi.sh)
tmp=$(mktemp -d /tmp/mana_mpiio.XXXXXX)
export HOME=$tmp MANA_RC=$tmp/mana.rc
trap 'pkill -f "status-file $tmp/" 2>/dev/null; [ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mkdir "$tmp/run" && cd "$tmp/run" || exit 1

coord
run 2 "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" > "$tmp/l.out" 2>&1 &
job=$!
ready 2
timeout 60 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$tmp/s.out" 2>&1
wait $job
check "checkpoint written" 'grep -q written "$tmp/s.out"'
data=$(ls "$tmp"/run/mpiio_*_data.dat 2>/dev/null)
log=$(ls "$tmp"/run/mpiio_*_log.dat 2>/dev/null)
check "the files are there" '[ -f "$data" ] && [ -f "$log" ]'
cp -p "$data" "$tmp/data.before"

# 1. The log file replaced by a copy of itself.
cp -p "$log" "$log.copy" && mv "$log.copy" "$log"
cp -p "$log" "$tmp/log.before"
coord
run 2 "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r1.out" 2>&1
rc=$?
check "replaced file: refused ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "replaced file: named, with the way on" 'grep -q "MPI-IO file .*_log.dat is not the file that was open at the checkpoint" "$tmp/r1.out" && grep -q MANA_IO_REPLACED=1 "$tmp/r1.out"'
check "replaced file: data file unchanged" 'cmp -s "$data" "$tmp/data.before"'
check "replaced file: log file unchanged" 'cmp -s "$log" "$tmp/log.before"'

# 2. The data file missing (set aside), the replaced log accepted.
mv "$data" "$tmp/data.aside"
coord
MANA_IO_REPLACED=1 run 2 "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r2.out" 2>&1
rc=$?
check "missing file: refused ($rc)" '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
check "missing file: named" 'grep -q "MPI-IO file .*_data.dat was open at the checkpoint and cannot be found now" "$tmp/r2.out"'
check "missing file: not created" '[ ! -e "$data" ]'
check "missing file: log file unchanged" 'cmp -s "$log" "$tmp/log.before"'

# 3. Both put right: the restart runs to the end, as a native run of as many iterations does.
mv "$tmp/data.aside" "$data"
echo 3 > "$tmp/stop"
coord
MANA_IO_REPLACED=1 run 2 "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r3.out" 2>&1
rc=$?
check "put right: the restart finished ($rc)" '[ $rc -eq 0 ]'
got=$(grep "done: " "$tmp/r3.out" | tail -n 1)
iters=$(echo "$got" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
want=
[ -n "$iters" ] && want=$(run 2 "$prog" --iters "$iters" 2>&1 | grep "done: " | tail -n 1)
check "put right: the native result ($got)" '[ -n "$got" ] && [ "$got" = "$want" ]'
if [ "$fails" -ne 0 ]; then
    for f in "$tmp"/*.out; do echo "---- $f"; tail -n 15 "$f"; done
    exit 1
fi
echo "PASS"
