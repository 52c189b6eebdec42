#!/usr/bin/env bash
# inflight.sh MPI PROG - 2,000 small messages in flight at a checkpoint (inflight.c): rank 1 has sent them,
# rank 0 has not received them and waits outside MPI for a go file; checkpoint-and-kill, restart, go: rank 0
# must receive every message, in order, from the runtime's buffer.  (The drain's 14-round cap refused the
# checkpoint: "N message(s) still in flight after 14 rounds".)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 inflight

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" "$tmp/go" 2000 > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready 2
checkpoint_kill 1
wait $job
check "nothing received before the restart" '! grep -q "inflight done" "$tmp/l.out"'
coord
touch "$tmp/go"
run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r.out" 2> "$tmp/r.err"
rc=$?
check "restart finished ($rc)" '[ $rc -eq 0 ]'
check "every message, in order (sum 0..1999 = 1999000)" 'grep -q "^inflight done: 2000 messages sum=1999000$" "$tmp/r.out"'
check "no failure" '! grep -q FAIL "$tmp/l.out" "$tmp/r.out"'
finish "$tmp"/*.out "$tmp"/*.err "$tmp/coord.log"
