#!/usr/bin/env bash
# win_fallback.sh MPI PROG WHEN NWIN - Open MPI's allocated and shared windows when their memory cannot be the
# library's (win.c, "windows on the real library's memory"): the way without the alias, agreed by every member.
# The job (2 ranks, PROG making NWIN such windows each) runs with MANA_DEBUG=1 and the test hook
# MANA_TEST_WIN_ALIAS_FAIL=WHEN:1, so rank 1 reports its alias failed:
#   make    when each window is made: every rank makes it on upper-half memory instead (all NWIN x 2
#           say so at launch), and the restart makes it again there
#   replay  at the restart: every window was aliased at launch; at the replay rank 1 fails, every rank
#           frees the new real window and makes it on its restored copy (all NWIN x 2 say so: a shared
#           one through the runtime's own segment file, shared again between the ranks)
# Either way: checkpoint-and-kill, restart, the native result.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 when=$3 nwin=$4 np=2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np winfallback
export MANA_DEBUG=1 MANA_TEST_WIN_ALIAS_FAIL=$when:1
want=$((nwin * np))

coord
launch_job $np
if [ "$when" = make ]; then
    check "launch: all $want windows on the upper half's memory (rank 1's alias failed)" \
        'lines_match $want "window on the upper half.s memory" "$tmp/l.err"'
else
    check "launch: all $want windows on Open MPI's memory, aliased" \
        'lines_match $want "window on the MPI library.s (aliased) memory" "$tmp/l.err"'
fi
checkpoint_kill 1
wait $job
restart_to_end 40
if [ "$when" = make ]; then
    check "restart: no window on the library's memory" '! grep -q "on the MPI library.s memory again" "$tmp/r.err"'
else
    check "restart: all $want windows made again on their restored copies" \
        'lines_match $want "the window is made on the restored copy" "$tmp/r.err"'
fi
finish "$tmp"/*.out "$tmp"/*.err
