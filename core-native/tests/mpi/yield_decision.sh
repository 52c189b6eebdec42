#!/usr/bin/env bash
# yield_decision.sh RING_PROG - whether a rank's waits poll or yield (lh_mpi.c yield_waits): by the node's
# ranks against the CPUs they may use between them, never one rank's affinity mask alone.  Open MPI's
# mpirun binds each of 2 ranks to a core of its own (1 CPU in each mask): those ranks must poll, where
# they yielded every 64 polls before (a round trip beside two spinning processes: 101 us, 32-36 us
# polling).  And ranks that outnumber the CPUs (unbound, oversubscribed) must yield.  The decision is read
# from the lower half's MANA_DEBUG line on every rank.  Needs 2 CPUs or more (exit 77, skipped, else).
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
prog=$1
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "yield_decision: 1 CPU here: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MANA_NO_COORD=1 MANA_DEBUG=1
unset OMPI_MCA_rmaps_base_oversubscribe MANA_YIELD
tmp=$(mktemp -d /tmp/mana_yield.XXXXXX) || exit 1
trap '[ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
# run NAME NP MPIRUN-OPTIONS...: the job to its end (10 iterations), its output in $tmp/NAME.out
run() {
    local name=$1 np=$2; shift 2
    timeout 120 mpirun.openmpi "$@" -n "$np" "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck_$name" "$prog" --iters 10 \
        > "$tmp/$name.out" 2>&1
}
run bound 2 --bind-to core
check "2 ranks bound to a core each ran" 'grep -q "done:" "$tmp/bound.out"'
check "2 ranks bound to a core each: both poll (2 CPUs between them)" \
    '[ "$(grep -c "2 rank(s) of the job on this node, 2 CPU(s) between them: waits poll" "$tmp/bound.out")" = 2 ]'
np=$((ncpu + 1))
run over "$np" --oversubscribe --bind-to none
check "$np unbound ranks on $ncpu CPUs ran" 'grep -q "done:" "$tmp/over.out"'
check "$np unbound ranks on $ncpu CPUs: all yield" \
    '[ "$(grep -c "$np rank(s) of the job on this node, $ncpu CPU(s) between them: waits yield" "$tmp/over.out")" = "$np" ]'
if [ "$fails" -ne 0 ]; then
    for f in "$tmp"/*.out; do echo "---- $f"; grep -a -E 'CPU|done|rror' "$f" | head -n 20; done
    exit 1
fi
echo "PASS"
