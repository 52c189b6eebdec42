#!/usr/bin/env bash
# launcher_mpi.sh MPI - the MPI of a program whose libraries name none, taken from its launcher, with
# neither MANA_MPI nor --mpi.  dlopen_mpi.c opens the real library by absolute path, as an interpreter's
# MPI module does (mpi4py: mpi_openmpi_mpi4py_2_launcher), so ldd finds no MPI in it.
#   1. under MPI's own mpirun, the ranks run on that MPI (mana_launch --verbose says the launcher named
#      it) and register as one job of 2; each used to be rank R of 1, and rank 1 was refused;
#   2. (openmpi) the same mpirun without OMPI_COMM_WORLD_RANK/SIZE, left with PMIX_RANK as a PMIx
#      launcher (prterun) gives it: every rank refuses with one line naming --mpi openmpi, and nothing
#      registers;
#   3. (openmpi) there, --mpi openmpi settles it: one job of 2 again.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
HERE=$(cd "$(dirname -- "$(readlink -f -- "$0")")" && pwd -P)
mpi=$1
tmp=$(mktemp -d /tmp/mana_launcher_mpi.XXXXXX) || exit 1
# a coordinator still up (a failed check) goes by the pid its status file names
trap '[ -r "$tmp/mana.rc" ] && kill "$(sed -n "s/^Pid: *//p" "$tmp/mana.rc")" 2>/dev/null; rm -rf "$tmp"' EXIT
export HOME=$tmp MANA_RC=$tmp/mana.rc
unset MANA_MPI MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_NO_COORD MANA_QUIET
. "$HERE/checks.sh"
libdir=/usr/lib/x86_64-linux-gnu
case $mpi in
    openmpi) real=$libdir/libmpi.so.40 MPIRUN="mpirun.openmpi --oversubscribe -n 2" name="Open MPI's mpirun (OMPI_COMM_WORLD_RANK)"
             export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1;;
    mpich) real=$libdir/libmpich.so.12 MPIRUN="mpirun.mpich -n 2" name="MPICH's mpirun (PMI_RANK)";;
    *) echo "bad MPI $mpi" >&2; exit 2;;
esac
cc -O2 -o "$tmp/dlopen_mpi" "$HERE/dlopen_mpi.c" -ldl || { echo "FAIL: cannot build dlopen_mpi"; exit 1; }
ldd "$tmp/dlopen_mpi" | grep -q 'libmpi' && { echo "FAIL: dlopen_mpi links an MPI library"; exit 1; }

# A coordinator with a log of every registration.  It stays after the job's last rank (the log is
# written by its event thread, which an exit-on-last stop can leave behind) until stop_coordinator.
start_coordinator() {
    rm -f "$tmp/mana.rc"
    "$ROOT/bin/mana_coordinator" --verbose --no-exit-on-last --status-file "$tmp/mana.rc" -p 0 \
        --log-file "$tmp/coord$1.log" > /dev/null 2>&1 || { echo "FAIL: coordinator did not start"; exit 1; }
}
stop_coordinator() { timeout 20 "$ROOT/bin/mana_status" --quit > /dev/null 2>&1; }
logged() {   # logged LOG COUNT PATTERN: COUNT lines match, within 10 s
    for _ in $(seq 200); do [ "$(grep -c -- "$3" "$1")" = "$2" ] && return 0; sleep 0.05; done
    return 1
}

# 1. the launcher names the MPI
start_coordinator 1
timeout 120 $MPIRUN "$ROOT/bin/mana_launch" --verbose --ckptdir "$tmp/ck1" "$tmp/dlopen_mpi" "$real" \
    > "$tmp/run1.out" 2> "$tmp/run1.err"
rc=$?
check "under $mpi's mpirun: exit 0" '[ "$rc" = 0 ] || { cat "$tmp/run1.err"; false; }'
check "under $mpi's mpirun: the allreduce of 2 ranks" 'grep -qx "dlopen_mpi: sum=1" "$tmp/run1.out"'
check "under $mpi's mpirun: both ranks on $mpi, named by the launcher" \
    '[ "$(grep -cF "(MPI: $mpi, named by $name)" "$tmp/run1.err")" = 2 ]'
check "under $mpi's mpirun: the coordinator's job has 2 ranks" \
    'logged "$tmp/coord1.log" 1 "job '\''default'\'' started: 2 ranks" && logged "$tmp/coord1.log" 2 "registered:"'
check "under $mpi's mpirun: no rank refused" '! grep -q "refused" "$tmp/coord1.log" || { cat "$tmp/coord1.log"; false; }'
stop_coordinator

if [ "$mpi" = openmpi ]; then
    # 2. a launcher that names no MPI and no size: refused, with the flag, before anything registers
    start_coordinator 2
    timeout 120 $MPIRUN env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE \
        "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck2" "$tmp/dlopen_mpi" "$real" > "$tmp/run2.out" 2> "$tmp/run2.err"
    rc=$?
    want="mana_launch: dlopen_mpi links no MPI library, and a PMIx launcher (PMIX_RANK without OMPI_COMM_WORLD_RANK) says neither which MPI it runs nor how many ranks: pass --mpi openmpi or --mpi mpich (the MPI the program loads)"
    check "PMIX_RANK only: refused" '[ "$rc" != 0 ]'
    check "PMIX_RANK only: one line per rank, with the flag" \
        '[ "$(grep -cxF "$want" "$tmp/run2.err")" = 2 ] || { cat "$tmp/run2.err"; false; }'
    check "PMIX_RANK only: the program did not run" '! grep -q "dlopen_mpi" "$tmp/run2.out"'
    check "PMIX_RANK only: nothing registered" '! grep -q "registered:" "$tmp/coord2.log"'
    stop_coordinator
    # 3. the flag it names settles it
    start_coordinator 3
    timeout 120 $MPIRUN env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE \
        "$ROOT/bin/mana_launch" --mpi openmpi --ckptdir "$tmp/ck3" "$tmp/dlopen_mpi" "$real" > "$tmp/run3.out" 2> "$tmp/run3.err"
    rc=$?
    check "PMIX_RANK only, --mpi openmpi: the allreduce of 2 ranks" \
        '[ "$rc" = 0 ] && grep -qx "dlopen_mpi: sum=1" "$tmp/run3.out" || { cat "$tmp/run3.err"; false; }'
    check "PMIX_RANK only, --mpi openmpi: one job of 2" \
        'logged "$tmp/coord3.log" 1 "job '\''default'\'' started: 2 ranks"'
    stop_coordinator
fi
[ "$fails" = 0 ] && echo "launcher_mpi[$mpi]: PASS" || echo "launcher_mpi[$mpi]: $fails failure(s)"
[ "$fails" = 0 ]
