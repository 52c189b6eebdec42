#!/usr/bin/env bash
# loading_test.sh MPI SOURCE_DIR - the upper half gets the runtime's MPI library however the program
# names the real one: a binary with a DT_RPATH to the real library's folder (searched before
# LD_LIBRARY_PATH) is checkpointed, killed and restarted (cr_mpi.sh), and a program that dlopens the
# real library by absolute path runs under the runtime.  Without lib/mana/libmana_audit.so both would
# load the real library into the upper half.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
HERE=$(cd "$(dirname -- "$(readlink -f -- "$0")")" && pwd -P)
mpi=$1
tmp=$(mktemp -d /tmp/mana_loading.XXXXXX) || exit 1
trap 'rm -rf "$tmp"; pkill -f "status-file $tmp/" 2>/dev/null' EXIT
fail() { echo "loading_test[$mpi]: FAIL: $*"; exit 1; }
libdir=/usr/lib/x86_64-linux-gnu
case $mpi in
    openmpi) cc=mpicc.openmpi real=$libdir/libmpi.so.40 MPIRUN="mpirun.openmpi -n 2"
             export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;;
    mpich) cc=mpicc.mpich real=$libdir/libmpich.so.12 MPIRUN="mpirun.mpich -n 2";;
    *) fail "bad MPI $mpi";;
esac
# 1. DT_RPATH (not RUNPATH: --disable-new-dtags) to the folder of the real library
$cc -O2 -I"$HERE" -Wl,--disable-new-dtags -Wl,-rpath,$libdir -o "$tmp/pingpong_rpath" "$HERE/pingpong.c" \
    || fail "cannot build the DT_RPATH program"
readelf -d "$tmp/pingpong_rpath" | grep -q "(RPATH)" || fail "the program has no DT_RPATH"
"$HERE/cr_mpi.sh" --mode kill --seed 51 "$mpi" 2 "$tmp/pingpong_rpath" || fail "checkpoint/restart of a DT_RPATH program"
# 2. dlopen of the real library by absolute path
cc -O2 -o "$tmp/dlopen_mpi" "$HERE/dlopen_mpi.c" -ldl || fail "cannot build dlopen_mpi"
want=$(timeout 60 $MPIRUN "$tmp/dlopen_mpi" "$real" 2>&1 | grep '^dlopen_mpi:')
[ "$want" = "dlopen_mpi: sum=1" ] || fail "native dlopen_mpi printed '$want'"
got=$(MANA_NO_COORD=1 MANA_MPI=$mpi timeout 60 $MPIRUN "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$tmp/dlopen_mpi" "$real" 2>"$tmp/err" | grep '^dlopen_mpi:')
[ "$got" = "$want" ] || { cat "$tmp/err"; fail "dlopen_mpi under the runtime printed '$got'"; }
echo "loading_test[$mpi]: PASS"
