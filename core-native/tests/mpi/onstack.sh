#!/usr/bin/env bash
# onstack.sh MPI PROG - a checkpoint taken while every rank's main thread is inside its SIGSEGV handler, on
# the alternate signal stack (faults.c "hold FILE": SA_ONSTACK; at its third fault each rank's handler says
# so and waits for FILE, outside MPI).  Under MPICH the main thread's alternate stack was the MPI library's
# (UCX's library constructor makes one in the lower half before the program exists), memory no image holds:
# the restarted handler's frames were gone.  The plug-in now gives the main thread an alternate stack of
# its own in upper memory (plugin/sigwrap.c, mana_altstack_adopt), and a restart drops one the image does
# not hold (lower-half/restore.c).
#   1. launch; both ranks held in the handler; checkpoint-and-kill;
#   2. the image: rank 0's main thread stopped inside its alternate stack, and that stack lies in one of
#      the image's regions;
#   3. restart; once every rank runs again, FILE; the handlers finish; the native result.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mpi=$1 prog=$2
. "$(dirname -- "$(readlink -f -- "$0")")/checks.sh"
mpi_script_setup "$mpi" 2 onstack

coord
run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" hold "$tmp/go" \
    > "$tmp/l.out" 2> "$tmp/l.err" &
job=$!
ready 2
held() { [ "$(grep -c '^faults: held in the SIGSEGV handler' "$tmp/l.out")" = 2 ]; }
wait_for 60 held
check "both ranks held in their SIGSEGV handler" held
[ "$fails" -eq 0 ] || finish "$tmp/l.out" "$tmp/l.err"
if [ "$mpi" = mpich ]; then
    # natively UCX gives the main thread an alternate stack: the handler must be on one here too
    check "the handlers run on an alternate stack" '! grep -q "^faults: held in the SIGSEGV handler, not on" "$tmp/l.out"'
fi
checkpoint_kill 1
wait "$job"
[ "$fails" -eq 0 ] || finish "$tmp/l.out" "$tmp/l.err" "$tmp/p1.out"

# rank 0's main thread in the image: its rsp inside its alternate stack, which one region of the image holds
img=$(ls "$tmp"/ck/ckpt_rank_0/*_gen1.mana)
"$ROOT/bin/mana_inspect" threads "$img" > "$tmp/threads.txt" 2>&1
"$ROOT/bin/mana_inspect" map "$img" > "$tmp/map.txt" 2>&1
read -r alt altn rsp <<< "$(awk '/\(main\)/ { m = 1 } m && /altstack/ { split($NF, a, "+"); s = a[1]; n = a[2] }
    m && / rsp / { for (i = 1; i < NF; i++) if ($i == "rsp") r = $(i + 1); print s, n, r; exit }' "$tmp/threads.txt")"
on_alt() { [ -n "$alt" ] && [ -n "$rsp" ] && [ "$altn" -gt 0 ] &&
           [ $((0x$rsp)) -ge $((alt)) ] && [ $((0x$rsp)) -lt $((alt + altn)) ]; }
if [ "$mpi" = mpich ]; then
    check "the image: rank 0's main thread stopped on its alternate stack ($alt+$altn, rsp 0x$rsp)" on_alt
fi
if [ -n "$alt" ] && [ "${altn:-0}" -gt 0 ]; then
    # mana_inspect map: START-END (hex) PERM HALF ...; the stack must lie in one upper region
    held_by_image() {
        local range perm half rest
        while read -r range perm half rest; do
            [ "$half" = upper ] && [[ $range =~ ^([0-9a-f]+)-([0-9a-f]+)$ ]] || continue
            [ $((16#${BASH_REMATCH[1]})) -le $((alt)) ] && [ $((alt + altn)) -le $((16#${BASH_REMATCH[2]})) ] && return 0
        done < "$tmp/map.txt"
        return 1
    }
    check "the image holds the main thread's alternate stack (an upper region)" held_by_image
fi

while_restarting() { await_running 2 60 && touch "$tmp/go"; }
restart_to_end 3 hold "$tmp/go"
check "no check failed in the restarted run" '! grep -q "FAIL" "$tmp/r.out"'
finish "$tmp/l.out" "$tmp/l.err" "$tmp/r.out" "$tmp/r.err" "$tmp/threads.txt" "$tmp/map.txt"
