#!/usr/bin/env bash
# rebuilt.sh MPI PROG OTHER - a job launched by the installed runtime, checkpointed and killed, then
# restarted on a lower half of another build (OTHER: lower-half-MPI built at -O0, whose data lie
# elsewhere, as after an upgrade or a rebuild of the runtime).  The upper half comes back from the image
# and must find the new lower half's block where the restore put it, not where the old build had it:
# before, every such restart of an MPI program ended with "the restarted lower half has no MPI" (the
# MPI layer read the block at the old build's address).  It must finish with the native result.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 other=$3
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 rebuilt
block() { nm -- "$1" 2>/dev/null | awk '$3 == "mana_lh" { print $1 }'; }
a=$(block "$ROOT/bin/lower-half-$mpi") b=$(block "$other")
check "the two builds keep the lower half's block at different addresses ($a, $b)" '[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]'
[ "$fails" -eq 0 ] || finish

# A runtime root like the installed one but for its lower half.  Copied: the launch scripts and the
# plain lower half, which find their siblings from their own path (mana_restart runs bin/lower-half,
# which hands an MPI image on to bin/lower-half-MPI beside its real self); everything else linked.
r2=$tmp/root
mkdir -p "$r2/bin" || exit 1
for f in "$ROOT"/bin/*; do
    n=$(basename -- "$f")
    case $n in
        "lower-half-$mpi") cp -- "$other" "$r2/bin/$n";;
        mana_launch|mana_restart|lower-half) cp -- "$f" "$r2/bin/$n";;
        *) ln -s -- "$f" "$r2/bin/$n";;
    esac || exit 1
done
for d in "$ROOT"/*; do [ "$(basename -- "$d")" = bin ] || ln -s -- "$d" "$r2/$(basename -- "$d")" || exit 1; done

coord
launch_job 2
checkpoint_kill 1
wait "$job"
# the restart through the other root (MANA_ROOT names it to the launch scripts), which says under
# MANA_DEBUG which lower half restores each rank
export MANA_ROOT=$r2 MANA_DEBUG=1
ROOT=$r2
restart_to_end 3
check "both ranks restored by the other build" \
    '[ "$(grep -c "restoring .* (lower half $r2/bin/lower-half-$mpi)" "$tmp/r.err")" = 2 ]'
check "no rank said the lower half has no MPI" '! grep -q "has no MPI" "$tmp/r.err" "$tmp/r.out"'
finish "$tmp"/*.out "$tmp"/*.err
