#!/usr/bin/env bash
# mpicc_mana_test.sh MPI NATIVE_PROGRAM SOURCE - bin/mpicc_mana end to end: build SOURCE with it,
# check that the binary refuses to run outside the runtime, then checkpoint-kill-restart it with
# cr_mpi.sh, compared with NATIVE_PROGRAM (the same source built with the MPI's own mpicc).
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
HERE=$(cd "$(dirname -- "$(readlink -f -- "$0")")" && pwd -P)
mpi=$1 native=$2 src=$3
tmp=$(mktemp -d /tmp/mana_mpicc.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "mpicc_mana_test[$mpi]: FAIL: $*"; exit 1; }
"$ROOT/bin/mpicc_mana" --mpi "$mpi" -O2 -I"$HERE" -o "$tmp/prog" "$src" > "$tmp/cc.out" 2>&1 \
    || { cat "$tmp/cc.out"; fail "mpicc_mana could not build $src"; }
want=$("$ROOT/bin/mpicc_mana" --mpi "$mpi" -show-link-info)
case $want in *"lib/mana/$mpi/"*) ;; *) fail "link flags do not name the runtime's library: $want";; esac
readelf -d "$tmp/prog" | grep -q "RUNPATH.*lib/mana/$mpi" || fail "no RUNPATH to lib/mana/$mpi in the binary"
timeout 60 "$tmp/prog" --iters 1 > "$tmp/native.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "run outside the runtime: exit $rc, want 1"
grep -q "not started by mana_launch" "$tmp/native.out" || fail "run outside the runtime did not say why: $(cat "$tmp/native.out")"
"$HERE/cr_mpi.sh" --mode kill --seed 41 --native "$native" "$mpi" 2 "$tmp/prog" || fail "checkpoint/restart of the mpicc_mana build"
echo "mpicc_mana_test[$mpi]: PASS"
