#!/usr/bin/env bash
# shmwin_split.sh PROG - a shared-memory window whose communicator is no longer on one node at restart:
# the restart must fail and name the window.  MPICH's MPIR_CVAR_ODD_EVEN_CLIQUES=1 makes the even and
# the odd ranks of one machine two "nodes"; the restart alone runs with it (cr_mpi.sh --restart-env), so
# shmwin.c (PROG, built for MPICH) makes its window on one node, is checkpointed and killed, and its
# restart finds the ranks of the window's communicator on two.  Each rank's restart says so
# ("cannot make shared-memory window N ("shmwin.state") again ... not all on one node") and the job
# fails; a restart that went ahead (the variable ignored) or failed for another reason fails this test.
set -u
prog=$1
here=$(dirname -- "$(readlink -f -- "$0")")
out=$(MANA_TEST_KEEP=1 "$here/cr_mpi.sh" --mode kill --seed 106 --restart-env MPIR_CVAR_ODD_EVEN_CLIQUES=1 \
          mpich 2 "$prog" 2>&1)
rc=$?
kept=$(printf '%s\n' "$out" | sed -n 's/^cr_mpi: kept //p' | tail -1)
[ -n "${MANA_TEST_KEEP:-}" ] || trap '[ -n "$kept" ] && rm -rf "$kept"' EXIT
if [ "$rc" -eq 0 ]; then
    echo "shmwin_split: FAIL: the restart on two 'nodes' went ahead:"; printf '%s\n' "$out" | tail -5; exit 1
fi
if [ -z "$kept" ] || ! ls "$kept"/restart*.err > /dev/null 2>&1; then
    echo "shmwin_split: FAIL: the job failed before its restart:"; printf '%s\n' "$out" | tail -10; exit 1
fi
n=$(cat "$kept"/restart*.err | grep -c 'cannot make shared-memory window [0-9]* ("shmwin.state") again (MPI_Win_allocate_shared): the ranks of its communicator are not all on one node')
if [ "$n" -ne 2 ]; then
    echo "shmwin_split: FAIL: $n of 2 ranks named the window:"; cat "$kept"/restart*.err | tail -10; exit 1
fi
echo "shmwin_split: PASS (both ranks: $(grep -h -m1 'shared-memory window' "$kept"/restart*.err | head -1))"
