#!/usr/bin/env bash
# bottom.sh MPI PROG - sends and receives at MPI_BOTTOM with a struct of absolute addresses (bottom.c):
# MPI_Bsend and MPI_Sendrecv_replace under the runtime, then a message the checkpoint's drain buffers,
# received at MPI_BOTTOM after a checkpoint, kill and restart.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 bottom

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" "$tmp/go" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready 2
checkpoint_kill 1
wait $job
check "no failure before the checkpoint" '! grep -q FAIL "$tmp/l.out"'
coord
touch "$tmp/go"
run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r.out" 2> "$tmp/r.err"
rc=$?
check "restart finished ($rc)" '[ $rc -eq 0 ]'
check "the values (11 + 1.5 + 101 + 0.25 + 33 + 4.75)" 'grep -q "^bottom done: sum=151.5$" "$tmp/r.out"'
finish "$tmp"/*.out "$tmp"/*.err
