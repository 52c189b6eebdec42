#!/usr/bin/env bash
# shmwin_forked.sh MPI PROG - a shared-memory window larger than 1 MiB under a forked checkpoint, then
# checkpoint-and-kill and restart.  PROG is shmwin.c, run with 2 MiB more in each rank's part of both windows (the
# segments are /dev/shm files unlinked once mapped: the runtime's own on MPICH, Open MPI's seen through an
# alias on Open MPI (win.c), so the image stores their bytes either way): a writer process
# would read it while the program stores into it, so the checkpoint asked forked (mana_status
# --forked) must be written with the program stopped, and each rank must say why, naming the segment.
# Then the job is checkpointed and killed, restarted (the 4 MiB segment made again from the ranks'
# copies), stopped, and its result compared with a native run of the same number of iterations (every
# rank's padding checked at the end).
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2 pad=$((2 << 20))
case $mpi in
    openmpi) export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
             run() { timeout 120 mpirun.openmpi --oversubscribe -n 2 "$@"; };;
    mpich)   run() { timeout 120 mpirun.mpich -n 2 "$@"; };;
    *)       echo "usage: $0 openmpi|mpich PROG"; exit 2;;
esac
tmp=$(mktemp -d /tmp/mana_shmfork.XXXXXX)
export HOME=$tmp MANA_RC=$tmp/mana.rc MANA_TIMING=1
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET
trap 'pkill -f "status-file $tmp/" 2>/dev/null; [ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" "$pad" > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready 2
timeout 90 "$ROOT/bin/mana_status" --checkpoint --forked > "$tmp/s1.out" 2>&1
check "forked checkpoint asked: written" 'grep -q written "$tmp/s1.out"'
# (both windows' segments are larger than 1 MiB: a file mapping that large is otherwise left to its file)
said() { grep -o "not forked: the shared mapping 0x[0-9a-f]*-0x[0-9a-f]* /dev/shm/[^ ]* (deleted) is written by the program" "$tmp/l.err"; }
unforked() { [ "$(said | wc -l)" = 2 ]; }
large() { local r; for r in $(said | sed 's/.*mapping \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) .*/\1:\2/'); do
              [ $((${r#*:} - ${r%%:*})) -gt $((1 << 20)) ] || return 1; done; }
check "both ranks wrote it with the program stopped, naming the segment" 'wait_for 30 unforked && large'
check "no writer process" '! grep -q "checkpoint: forked writer, program running" "$tmp/l.err"'
timeout 90 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$tmp/s2.out" 2>&1
check "checkpoint-and-kill written" 'grep -q written "$tmp/s2.out"'
wait $job
restart_to_end 30 "$pad"
echo "shmwin_forked: image per rank $(du -sh "$tmp"/ck/ckpt_rank_0 2>/dev/null | cut -f1)"
finish "$tmp"/*.out "$tmp"/*.err
