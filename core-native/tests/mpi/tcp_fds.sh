#!/usr/bin/env bash
# tcp_fds.sh PROG - the MPI library's own sockets made after MPI_Init are never saved as the program's.
# PROG (halo.c) runs on 4 Open MPI ranks over the TCP transport only (OMPI_MCA_btl=self,tcp): a rank
# connects to a peer at its first message to it, after MPI_Init, and accepts the peer's connection in
# the library's progress thread.  The job is checkpointed and killed, restarted (its new library connects
# afresh), checkpointed and killed again, restarted to its end: the native result, and no rank may say
# a descriptor "cannot be restored".
# (Those sockets were once saved as the program's: each restart put /dev/null at their numbers, over the
# new library's own sockets there; a rank of a 4-node job died with SIGSEGV and its peers' connects
# were refused: bench-cluster.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
prog=$1 np=4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_odls_base_sigkill_timeout=0 OMPI_MCA_btl=self,tcp
run() { timeout 120 mpirun.openmpi --oversubscribe -n $np "$@"; }
tmp=$(mktemp -d /tmp/mana_tcpfds.XXXXXX)
export HOME=$tmp MANA_RC=$tmp/mana.rc
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_MPI
trap 'pkill -f "status-file $tmp/" 2>/dev/null; [ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready $np
checkpoint_kill 1
wait $job
coord
run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r1.out" 2> "$tmp/r1.err" &
job=$!
await_running $np 60 || { echo "FAIL: the restarted ranks did not register"; exit 1; }
checkpoint_kill 2
wait $job
restart_to_end 20
check "no descriptor left to /dev/null" '! grep -h "cannot be restored" "$tmp"/*.err'
finish "$tmp"/*.out "$tmp"/*.err
