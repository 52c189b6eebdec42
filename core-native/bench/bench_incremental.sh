#!/bin/sh
# bench_incremental.sh - full against incremental checkpoints of a program holding 1 GiB
# (tests/programs/dirtier), run by bench_process.sh (make bench-process) or alone.  A table, then ONE
# JSON line as the last line.
#
# For each mode (full images; MANA_INCREMENTAL=1; MANA_COMPRESS=fast, full images; MANA_FORKED=1, full
# images written by a writer process while the program runs) one run of the program: a first checkpoint
# (full in every mode), then for 0 %, 1 %, 10 % and 100 % of its pages changed since the previous checkpoint:
#   pause_ms   the longest gap between two iterations of the program's 1 ms loop during the checkpoint
#              (measured inside the program: the application's pause)
#   ckpt_s     the coordinator's request-to-commit time of that checkpoint
#   bytes      the size of the image it wrote
# Three more runs hold `mixed` data (every other word a small count: zstd halves it), first and 100 %
# steps only: uncompressed (mixed), MANA_COMPRESS=fast on one thread (mixed_fast1, MANA_COMPRESS_THREADS=1)
# and on one thread per core (mixed_fast): the compression threads' speed-up and a compressed restart
# of data that compresses, beside the same data uncompressed.
# Where a DMTCP build is at hand (MANA_BENCH_DMTCP=DIR, or dmtcp_launch on PATH) the same program runs
# under DMTCP too (first, 1 % and 100 % steps; --no-gzip) and gives the dmtcp rows; without one the
# benchmark runs on and says so.
# Each job is then killed and restarted from the last image (its chain, incremental), the images
# evicted from the page cache first: restart_s is mana_restart's start to the program's first
# iteration after it.  incr_bytes_ratio_1pct = bytes the incremental image of the 1 % step wrote /
# bytes of the pages the program changed in that step (target: <= 1.2).
# Environment: MANA_BENCH_DIR (default /var/tmp), MANA_BENCH_INCR_SIZE (default 1G).
set -u

ROOT=$(cd "$(dirname -- "$(readlink -f -- "$0")")/../.." && pwd -P)
PROG=$ROOT/core-native/build/tests/programs/dirtier
SIZE=${MANA_BENCH_INCR_SIZE:-1G}
. "$ROOT/core-native/bench/bench_lib.sh"     # note, require_runtime, kill_tree, bench_setup, now_ns
[ -x "$PROG" ] || { note "$PROG missing: make build first"; exit 1; }
require_runtime
bench_setup mana_bench_incr
export MANA_RC="$tmp/mana.rc"
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET DMTCP_COORD_HOST DMTCP_COORD_PORT MANA_INCREMENTAL \
      MANA_INCREMENTAL_FULL_EVERY MANA_DIRECT_IO MANA_FORKED MANA_COMPRESS MANA_COMPRESS_THREADS
start_coordinator() {
    rm -f "$tmp/mana.rc"
    HOME=$tmp "$ROOT/bin/mana_coordinator" --foreground --status-file "$tmp/mana.rc" -p 0 >> "$tmp/coord.log" 2>&1 &
    coord_pids="$coord_pids $!"     # --foreground: this pid is the coordinator (a detached one outlived the run)
    wait_for 30 status_ready
}

# req OUT DIR LINE: the next request to the program; waits for its answer, puts it in $ans (not in a
# subshell: $k counts the requests)
k=0
req() {
    k=$((k + 1))
    echo "$3" > "$2/req_$k.tmp" && mv "$2/req_$k.tmp" "$2/req_$k"
    wait_for 300 has_line "$1" "^done $k\( \|$\)" || return 1
    ans=$(grep "^done $k\( \|$\)" "$1" | tail -n 1)
}

# measure_step OUT DIR STEP CHECKPOINT-COMMAND...: change STEP % of the pages (not for "first"), take
# a checkpoint with the command, and set $dirtied, $ckpt_s (the command's elapsed_s=, else its wall
# time) and $pause_ms (the program's longest gap meanwhile); on failure 1, and $why says what
measure_step() {
    ms_out=$1 ms_dir=$2 ms_step=$3
    shift 3
    dirtied=0
    if [ "$ms_step" != first ]; then
        req "$ms_out" "$ms_dir" "dirty $ms_step" || { why="no answer to dirty $ms_step"; return 1; }
        dirtied=$(echo "$ans" | sed -n 's/.*dirtied=\([0-9]*\).*/\1/p')
    fi
    req "$ms_out" "$ms_dir" reset || { why="no answer to reset"; return 1; }
    ms_t0=$(now_ns)
    ms_r=$("$@" 2>&1) || { why="checkpoint failed: $(printf '%s' "$ms_r" | head -c 200)"; return 1; }
    ckpt_s=$(printf '%s\n' "$ms_r" | sed -n 's/.*elapsed_s=\([0-9.]*\).*/\1/p')
    [ -n "$ckpt_s" ] || ckpt_s=$(awk -v a="$ms_t0" -v b="$(now_ns)" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
    req "$ms_out" "$ms_dir" report || { why="no answer to report"; return 1; }
    gap_us=$(echo "$ans" | sed -n 's/.*maxgap_us=\([0-9]*\).*/\1/p')
    pause_ms=$(awk -v g="$gap_us" 'BEGIN { printf "%.1f", g / 1000 }')
}

# timed_restart OUT ERR DIR RESTART-COMMAND...: run the restart until the program says "resumed at_ns";
# $took is the time from the start to that moment (s); 1 when it never says so.  Then the program
# writes one word in every page ("dirty 100", requests in DIR) and $touched is how long that took
# (null if it did not answer): a restart that maps the image's pages leaves their copying to the
# program's first writes, one that decompresses pays it before.  The program is killed either way.
timed_restart() {
    tr_out=$1 tr_err=$2 tr_dir=$3
    shift 3
    touched=null
    tr_t0=$(now_ns)
    "$@" > "$tr_out" 2> "$tr_err" &
    running=$!
    tr_rc=1
    if wait_for 300 has_line "$tr_out" "resumed at_ns"; then
        tr_t1=$(sed -n 's/^resumed at_ns=\([0-9]*\)$/\1/p' "$tr_out" | head -n 1)
        took=$(awk -v a="$tr_t0" -v b="$tr_t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
        tr_rc=0
        # the program answers the request it was waiting for at the checkpoint (req_$k, already
        # there) first, then this one
        tr_t2=$(now_ns)
        req "$tr_out" "$tr_dir" "dirty 100" &&
            touched=$(awk -v a="$tr_t2" -v b="$(now_ns)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    fi
    kill_tree KILL "$running"
    wait "$running" 2>/dev/null
    running=
    return $tr_rc
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
rows=
for mode in full incremental compressed forked mixed mixed_fast1 mixed_fast; do
    d=$tmp/$mode
    mkdir -p "$d"
    out=$d/launch.out
    k=0
    status=ok restart_s=null touch_s=null
    [ "$mode" = incremental ] && export MANA_INCREMENTAL=1
    [ "$mode" = compressed ] && export MANA_COMPRESS=fast
    [ "$mode" = forked ] && export MANA_FORKED=1
    data= steps="first 0 1 10 100"
    case $mode in mixed*) data=mixed steps="first 100";; esac
    case $mode in mixed_fast*) export MANA_COMPRESS=fast;; esac
    [ "$mode" = mixed_fast1 ] && export MANA_COMPRESS_THREADS=1
    if ! start_coordinator; then
        status="coordinator did not start"
    else
        "$ROOT/bin/mana_launch" -q --ckptdir "$d/ck" "$PROG" "$SIZE" "$d" $data > "$out" 2> "$d/launch.err" &
        running=$!
        if ! wait_for 300 has_line "$out" "dirtier ready"; then
            status="program did not start: $(head -c 200 "$d/launch.err" | tr '\n' ' ')"
        else
            for step in $steps; do
                measure_step "$out" "$d" "$step" "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 300000 ||
                    { status=$why; break; }
                img=$(ls -t "$d"/ck/ckpt_rank_0/*.mana 2>/dev/null | head -n 1)
                bytes=$(stat -c %s "$img")
                rows="$rows$mode $step $pause_ms $ckpt_s $bytes $dirtied
"
            done
        fi
        kill_tree KILL "$running"
        wait "$running" 2>/dev/null
        running=
    fi
    if [ "$status" = ok ]; then
        for f in "$d"/ck/ckpt_rank_0/*.mana; do dd if="$f" iflag=nocache count=0 status=none 2>/dev/null; done
        if start_coordinator; then
            if timed_restart "$d/restart.out" "$d/restart.err" "$d" "$ROOT/bin/mana_restart" -q --restartdir "$d/ck"; then
                restart_s=$took touch_s=$touched
            else
                status="restart failed: $(head -c 200 "$d/restart.err" | tr '\n' ' ')"
            fi
        fi
    fi
    unset MANA_INCREMENTAL MANA_COMPRESS MANA_FORKED MANA_COMPRESS_THREADS
    eval "restart_$mode=\$restart_s touch_$mode=\$touch_s status_$mode=\"\$status\""
    rm -rf "$d/ck"
done
# ---- DMTCP, where a build is at hand (MANA_BENCH_DMTCP=DIR holding dmtcp_launch, or dmtcp_launch on
# PATH): the same program, the same steps (first, then 1 % and 100 % changed), images uncompressed
# (--no-gzip: as ours by default), the pause measured inside the program the same way ----
DMTCP_BIN=${MANA_BENCH_DMTCP:-}
[ -z "$DMTCP_BIN" ] && command -v dmtcp_launch > /dev/null 2>&1 && DMTCP_BIN=$(dirname "$(command -v dmtcp_launch)")
restart_dmtcp=null touch_dmtcp=null status_dmtcp="no DMTCP build (MANA_BENCH_DMTCP=DIR)"
if [ -n "$DMTCP_BIN" ] && [ -x "$DMTCP_BIN/dmtcp_launch" ]; then
    d=$tmp/dmtcp
    mkdir -p "$d/ck"
    status_dmtcp=ok k=0
    "$DMTCP_BIN/dmtcp_coordinator" --daemon --exit-on-last -p 0 --port-file "$d/port" --ckptdir "$d/ck" \
        > "$d/coord.log" 2>&1
    wait_for 30 test -s "$d/port" || status_dmtcp="dmtcp_coordinator did not start"
    dport=$(cat "$d/port" 2>/dev/null)
    if [ "$status_dmtcp" = ok ]; then
        "$DMTCP_BIN/dmtcp_launch" --coord-port "$dport" --no-gzip --ckptdir "$d/ck" "$PROG" "$SIZE" "$d" \
            > "$d/out" 2> "$d/err" &
        running=$!
        if ! wait_for 300 has_line "$d/out" "dirtier ready"; then
            status_dmtcp="program did not start under DMTCP: $(head -c 200 "$d/err" | tr '\n' ' ')"
        else
            for step in first 1 100; do
                measure_step "$d/out" "$d" "$step" "$DMTCP_BIN/dmtcp_command" --coord-port "$dport" --bcheckpoint ||
                    { status_dmtcp=$why; break; }
                img=$(ls -t "$d"/ck/ckpt_*.dmtcp 2>/dev/null | head -n 1)
                bytes=$(stat -c %s "$img" 2>/dev/null || echo 0)
                rows="${rows}dmtcp $step $pause_ms $ckpt_s $bytes $dirtied
"
            done
        fi
        kill_tree KILL "$running"
        wait "$running" 2>/dev/null
        running=
        if [ "$status_dmtcp" = ok ]; then
            img=$(ls -t "$d"/ck/ckpt_*.dmtcp 2>/dev/null | head -n 1)
            dd if="$img" iflag=nocache count=0 status=none 2>/dev/null
            if timed_restart "$d/restart.out" "$d/restart.err" "$d" "$DMTCP_BIN/dmtcp_restart" --coord-port "$dport" "$img"; then
                restart_dmtcp=$took touch_dmtcp=$touched
            else
                status_dmtcp="dmtcp_restart failed: $(head -c 200 "$d/restart.err" | tr '\n' ' ')"
            fi
        fi
    fi
    "$DMTCP_BIN/dmtcp_command" --coord-port "$dport" --quit > /dev/null 2>&1
    rm -rf "$d/ck"
fi

# ---- the heat demo's image, compressed fast and strong: pages it holds / bytes of the file ----
HEAT=$ROOT/core-native/build/examples/heat
heat_ratio() {   # LEVEL -> prints "RATIO NOTE"
    ratio=null note="not measured"
    if [ -x "$HEAT" ] && start_coordinator; then
        d=$tmp/heat_$1
        mkdir -p "$d"
        MANA_COMPRESS=$1 "$ROOT/bin/mana_launch" -q --ckptdir "$d/ck" "$HEAT" 100000 20 > "$d/out" 2> "$d/err" &
        running=$!
        if wait_for 60 has_line "$d/out" "step" && "$ROOT/bin/mana_coord_probe" --checkpoint --timeout 60000 > /dev/null 2>&1
        then
            img=$(ls "$d"/ck/ckpt_rank_0/*.mana | head -n 1)
            pages=$("$ROOT/bin/lower-half" --check "$img" | sed -n 's/.*, \([0-9]*\) bytes stored.*/\1/p')
            fsz=$(stat -c %s "$img")
            [ -n "$pages" ] && ratio=$(awk -v p="$pages" -v f="$fsz" 'BEGIN { printf "%.2f", p / f }')
            note="$pages bytes of pages in a $fsz-byte image"
        fi
        kill_tree KILL "$running"
        wait "$running" 2>/dev/null
        running=
    fi
    echo "$ratio $note"
}
hf=$(heat_ratio fast) hs=$(heat_ratio strong)
zstd_ratio=${hf%% *} zstd_ratio_strong=${hs%% *}
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "incremental checkpoints, $SIZE of live data (load average $load0 before, $load1 after; 2 cores shared)"
printf '%-12s %6s %10s %8s %14s %10s\n' mode changed pause_ms ckpt_s image_bytes changed_B
printf '%s' "$rows" | while read -r m s p c b n; do
    printf '%-12s %6s %10s %8s %14s %10s\n' "$m" "$s" "$p" "$c" "$b" $((n * 4096))
done
echo "heat demo, MANA_COMPRESS=fast: ${hf#* }: ratio $zstd_ratio; strong: ${hs#* }: ratio $zstd_ratio_strong (target >= 2)"
echo "restart from the last image: full ${restart_full} s ($status_full), incremental chain ${restart_incremental} s ($status_incremental), compressed ${restart_compressed} s ($status_compressed), forked ${restart_forked} s ($status_forked)"
zt=$(nproc); [ "$zt" -gt 8 ] && zt=8        # zpool.h: ZPOOL_MAX
echo "then every page written once: full ${touch_full} s, incremental chain ${touch_incremental} s, compressed ${touch_compressed} s, forked ${touch_forked} s"
echo "DMTCP ($status_dmtcp): restart ${restart_dmtcp} s, then every page written once ${touch_dmtcp} s"
echo "mixed data, restart: uncompressed ${restart_mixed} s ($status_mixed), fast on one thread ${restart_mixed_fast1} s ($status_mixed_fast1), fast on $zt threads ${restart_mixed_fast} s ($status_mixed_fast)"
echo "mixed data, then every page written once: uncompressed ${touch_mixed} s, fast on one thread ${touch_mixed_fast1} s, fast on $zt threads ${touch_mixed_fast} s"
get() { printf '%s' "$rows" | awk -v m="$1" -v s="$2" -v f="$3" '$1 == m && $2 == s { print $f }'; }
num() { [ -n "$1" ] && echo "$1" || echo null; }
pause_full=$(num "$(get full 100 3)")
pause_incr_1=$(num "$(get incremental 1 3)")
b1=$(get incremental 1 5) n1=$(get incremental 1 6)
ratio=null
mb=$(get mixed 100 5) mzb=$(get mixed_fast 100 5)
zstd_ratio_mixed=null
[ -n "$mb" ] && [ -n "$mzb" ] && zstd_ratio_mixed=$(awk -v a="$mb" -v b="$mzb" 'BEGIN { printf "%.2f", a / b }')
[ -n "$b1" ] && [ -n "$n1" ] && [ "$n1" != 0 ] && ratio=$(awk -v b="$b1" -v n="$n1" 'BEGIN { printf "%.3f", b / (n * 4096) }')
echo "{\"pause_ms_1g_full\": $pause_full, \"pause_ms_1g_incr_1pct\": $pause_incr_1, \"pause_ms_1g_forked\": $(num "$(get forked 100 3)"), \"pause_ms_1g_forked_0pct\": $(num "$(get forked 0 3)"), \"ckpt_s_1g_forked_100pct\": $(num "$(get forked 100 4)"), \"restart_s_1g_forked\": $restart_forked, \"incr_bytes_ratio_1pct\": $ratio, \"incr_bytes_1g_0pct\": $(num "$(get incremental 0 5)"), \"incr_bytes_1g_10pct\": $(num "$(get incremental 10 5)"), \"ckpt_s_1g_incr_1pct\": $(num "$(get incremental 1 4)"), \"ckpt_s_1g_full_100pct\": $(num "$(get full 100 4)"), \"restart_s_1g_full\": $restart_full, \"restart_s_1g_incr_chain\": $restart_incremental, \"pause_ms_1g_compressed\": $(num "$(get compressed 100 3)"), \"restart_s_1g_compressed\": $restart_compressed, \"zstd_ratio_heat\": $zstd_ratio, \"zstd_ratio_heat_strong\": $zstd_ratio_strong, \"zstd_threads\": $zt, \"ckpt_s_1g_mixed_plain\": $(num "$(get mixed 100 4)"), \"ckpt_s_1g_mixed_zfast_1thread\": $(num "$(get mixed_fast1 100 4)"), \"ckpt_s_1g_mixed_zfast_threads\": $(num "$(get mixed_fast 100 4)"), \"zstd_ratio_mixed\": $zstd_ratio_mixed, \"restart_s_1g_mixed_plain\": $restart_mixed, \"restart_s_1g_mixed_zfast\": $restart_mixed_fast, \"pause_ms_1g_dmtcp\": $(num "$(get dmtcp 100 3)"), \"ckpt_s_1g_dmtcp_100pct\": $(num "$(get dmtcp 100 4)"), \"restart_s_1g_dmtcp\": $restart_dmtcp, \"touch_s_1g_full\": $touch_full, \"touch_s_1g_incr_chain\": $touch_incremental, \"touch_s_1g_forked\": $touch_forked, \"touch_s_1g_compressed\": $touch_compressed, \"touch_s_1g_mixed_plain\": $touch_mixed, \"touch_s_1g_mixed_zfast\": $touch_mixed_fast, \"touch_s_1g_dmtcp\": $touch_dmtcp}"
