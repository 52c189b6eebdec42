#!/usr/bin/env bash
# mpi_start_vote.sh MPI PROG - a checkpoint while one rank is in MPI and another has not called MPI_Init yet.
# Rank 1 of PROG (an mpitest.h program, 2 ranks) holds before MPI_Init (MT_PREINIT_HOLD_RANK=1); rank 0 says
# it is in MPI (MT_SAY_INIT) and waits there for rank 1.  A checkpoint then must be refused by both ranks
# alike, saying MPI was starting, and leave the job running; once rank 1 is let go, a checkpoint-and-kill is
# written and the restart ends with the native result.
# (Such a checkpoint once hung for good: the ranks in MPI ran the drain's first round while the other went
# to phase 1; MPICH's topo/graphmap1, 4 ranks, checkpointed in its first second.)
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 np=2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" $np startvote

coord
: > "$tmp/hold"
MT_PREINIT_HOLD_FILE=$tmp/hold MT_PREINIT_HOLD_RANK=1 MT_SAY_INIT=1 run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" \
    "$prog" --stop-file "$tmp/stop" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
split() { grep -q '^holding before MPI_Init' "$tmp/l.out" && grep -q '^rank 0 in MPI' "$tmp/l.out"; }
wait_for 60 split || { echo "FAIL: rank 1 did not hold before MPI_Init while rank 0 was in MPI"; tail "$tmp/l.out" "$tmp/l.err"; exit 1; }
await_running $np 60 || { echo "FAIL: not every rank registered"; exit 1; }
timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 90000 > "$tmp/p0.out" 2>&1
check "the checkpoint is refused: MPI was starting" 'grep -q "checkpoint failed: .*MPI was starting" "$tmp/p0.out"'
check "no image was committed" '! ls "$tmp"/ck/ckpt_rank_*/*.mana > /dev/null 2>&1'
rm -f "$tmp/hold"
wait_for 60 grep -q '^ready' "$tmp/l.out" || check "the job went on once rank 1 was let go" false
checkpoint_kill 2                 # (generation 1 was the refused one)
wait $job
restart_to_end 20
finish "$tmp"/*.out "$tmp"/*.err
