#!/bin/sh
# bench_process.sh - checkpoint/restart figures of the process layer
# (make bench-process).  A human table, then ONE JSON line as the last line.
#
#   - programs holding 1 MiB, 100 MiB and 1 GiB of live data (tests/programs/data):
#     checkpoint time (the coordinator's request-to-commit time), restart time
#     (mana_restart start to the wall-clock stamp of the program's first
#     output after the restart; it ticks every 1 ms), image size;
#   - the checkpoint directory's sequential write (dd conv=fsync) and read
#     throughput, in the same run; reads are made cold by evicting the file's
#     pages (dd iflag=nocache count=0, checked with fincore where present);
#     the image is evicted the same way before each restart;
#   - a compute loop's own time with and without the runtime (best of 5 runs
#     each, interleaved: this machine is shared, the minimum is the least
#     noisy); the overhead is computed on the process's CPU time during the
#     loop (runtime threads included), wall time shown beside it.
# Targets (issue "Runtime I"): checkpoint <= 1.5 x image bytes / write + 50 ms;
# restart <= 1.5 x image bytes / read + 50 ms; idle 1 MiB image < 5 MB; loop
# overhead < 1 %.  MB = 10^6 bytes.
#
#   - full against incremental checkpoints of 1 GiB with 0/1/10/100 % of the
#     pages changed: the program's own pause, bytes written, restart time
#     (bench_incremental.sh; its JSON keys join this line's).
# Environment: MANA_BENCH_DIR (checkpoint directory's parent; default
# /var/tmp), MANA_BENCH_SIZES (default "1M 100M 1G"), MANA_BENCH_ITERS
# (compute loop iterations, default 1000000000), MANA_BENCH_NO_INCR=1 (skip 4.).
set -u

ROOT=$(cd "$(dirname -- "$(readlink -f -- "$0")")/../.." && pwd -P)
PROGS=$ROOT/core-native/build/tests/programs
SIZES=${MANA_BENCH_SIZES:-1M 100M 1G}
ITERS=${MANA_BENCH_ITERS:-1000000000}

. "$ROOT/core-native/bench/bench_lib.sh"     # note, require_runtime, kill_tree, bench_setup, now_ns
for p in data compute; do
    [ -x "$PROGS/$p" ] || { note "$PROGS/$p missing: make build first"; exit 1; }
done
require_runtime
bench_setup mana_bench
# secs START_NS END_NS
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
export MANA_RC="$tmp/mana.rc"
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET DMTCP_COORD_HOST DMTCP_COORD_PORT

start_coordinator() {
    rm -f "$tmp/mana.rc"
    HOME=$tmp "$ROOT/bin/mana_coordinator" --foreground --status-file "$tmp/mana.rc" -p 0 >> "$tmp/coord.log" 2>&1 &
    coord_pids="$coord_pids $!"     # --foreground: this pid is the coordinator (a detached one outlived the run)
    wait_for 30 status_ready
}

# evict FILE: drop its pages from the page cache; prints how much stayed resident.
evict() {
    dd if="$1" iflag=nocache count=0 status=none 2>/dev/null
    if command -v fincore >/dev/null 2>&1; then
        fincore -n -b -o RES "$1" 2>/dev/null | awk '{ print $1 }'
    else
        echo "?"
    fi
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- 1. the directory's own throughput --------------------------------------
ddf=$tmp/dd.bin
t0=$(now_ns)
dd if=/dev/zero of="$ddf" bs=1M count=1024 conv=fsync status=none || { note "dd write failed"; exit 1; }
t1=$(now_ns)
write_mbps=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 1073741824 / 1e6 / ((b - a) / 1e9) }')
res=$(evict "$ddf")
t0=$(now_ns)
dd if="$ddf" of=/dev/null bs=1M status=none || { note "dd read failed"; exit 1; }
t1=$(now_ns)
read_mbps=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 1073741824 / 1e6 / ((b - a) / 1e9) }')
read_note="cold: ${res} bytes resident before the read"
[ "$res" = "0" ] || read_note="NOT fully cold: ${res} bytes were still cached before the read"
rm -f "$ddf"

# ---- 2. checkpoint / restart at three sizes ----------------------------------
rows=
for size in $SIZES; do
    ck=$tmp/ck_$size
    ckpt_s=null restart_s=null image_b=null status=ok
    out=$tmp/launch_$size.out
    if ! start_coordinator; then
        status="coordinator did not start"
    else
        "$ROOT/bin/mana_launch" -q --ckptdir "$ck" "$PROGS/data" "$size" 0 1 > "$out" 2> "$tmp/launch_$size.err" &
        running=$!
        if ! wait_for 120 has_line "$out" "data ready"; then
            status="program did not start under the runtime: $(head -c 200 "$tmp/launch_$size.err" | tr '\n' ' ')"
        elif ! r=$("$ROOT/bin/mana_coord_probe" --checkpoint --timeout 300000 2>&1); then
            status="checkpoint failed: $r"
        else
            ckpt_s=$(printf '%s\n' "$r" | sed -n 's/.*elapsed_s=\([0-9.]*\).*/\1/p')
            img=$(ls "$ck"/ckpt_rank_0/*.mana 2>/dev/null | head -n 1)
            [ -n "$img" ] && image_b=$(stat -c %s "$img")
        fi
        kill_tree KILL "$running"
        wait "$running" 2>/dev/null
        running=
    fi
    if [ "$status" = ok ] && [ "$image_b" != null ]; then
        cached=$(evict "$img")
        rout=$tmp/restart_$size.out
        if start_coordinator; then
            t0=$(now_ns)
            "$ROOT/bin/mana_restart" -q --restartdir "$ck" > "$rout" 2> "$tmp/restart_$size.err" &
            running=$!
            if wait_for 300 has_line "$rout" "data tick"; then
                t1=$(sed -n 's/^data tick [0-9]* at_ns=\([0-9]*\)$/\1/p' "$rout" | head -n 1)
                restart_s=$(secs "$t0" "$t1")
            else
                status="restart failed: $(head -c 200 "$tmp/restart_$size.err" | tr '\n' ' ')"
            fi
            kill_tree KILL "$running"
            wait "$running" 2>/dev/null
            running=
        else
            status="coordinator did not start for the restart"
        fi
        [ "$cached" = 0 ] || status="$status (image not fully evicted: $cached bytes cached)"
    fi
    rm -rf "$ck"
    rows="$rows$size $ckpt_s $restart_s $image_b $status
"
done

# ---- 3. compute loop with and without the runtime -----------------------------
# The overhead figure uses the process's CPU time during the loop (all
# threads, the runtime's checkpoint thread included): on a shared machine
# wall time mostly measures the neighbours.  Wall times are shown beside it.
best() { grep . | sort -n | head -n 1; }
start_coordinator || note "no coordinator for the loop runs"
: > "$tmp/loop_plain" ; : > "$tmp/loop_mana"
for k in 1 2 3 4 5; do
    "$PROGS/compute" "$ITERS" 2>&1 >/dev/null | grep '^compute loop_s=' >> "$tmp/loop_plain"
    "$ROOT/bin/mana_launch" -q --ckptdir "$tmp" "$PROGS/compute" "$ITERS" 2>&1 >/dev/null |
        grep '^compute loop_s=' >> "$tmp/loop_mana"
done
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | best; }
plain_s=$(field loop_s "$tmp/loop_plain") mana_s=$(field loop_s "$tmp/loop_mana")
plain_cpu=$(field cpu_s "$tmp/loop_plain") mana_cpu=$(field cpu_s "$tmp/loop_mana")
if [ -n "$plain_cpu" ] && [ -n "$mana_cpu" ]; then
    overhead=$(awk -v p="$plain_cpu" -v m="$mana_cpu" 'BEGIN { printf "%.2f", (m - p) / p * 100 }')
    wall_overhead=$(awk -v p="$plain_s" -v m="$mana_s" 'BEGIN { printf "%.2f", (m - p) / p * 100 }')
else
    overhead=null wall_overhead=null mana_s=${mana_s:-failed} mana_cpu=${mana_cpu:-failed}
fi

# ---- report --------------------------------------------------------------------
echo "Process-layer benchmark ($(uname -r), $(nproc) cores, load average at start $load0), checkpoint directory under ${MANA_BENCH_DIR:-/var/tmp}"
echo "  directory throughput: write ${write_mbps} MB/s (dd 1 GiB, conv=fsync), read ${read_mbps} MB/s ($read_note)"
echo
printf '%-6s %12s %12s %12s %14s %14s  %s\n' size ckpt_s restart_s image_MB ckpt_target_s rst_target_s status
json_extra=
ckpt_1g=null restart_1g=null image_1m=null ckpt_ok=null restart_ok=null
printf '%s' "$rows" | while read -r size c r b st; do
    if [ "$b" != null ]; then
        mb=$(awk -v b="$b" 'BEGIN { printf "%.2f", b / 1e6 }')
        ct=$(awk -v b="$b" -v w="$write_mbps" 'BEGIN { printf "%.3f", 1.5 * b / 1e6 / w + 0.05 }')
        rt=$(awk -v b="$b" -v r="$read_mbps" 'BEGIN { printf "%.3f", 1.5 * b / 1e6 / r + 0.05 }')
    else
        mb=- ct=- rt=-
    fi
    printf '%-6s %12s %12s %12s %14s %14s  %s\n' "$size" "$c" "$r" "$mb" "$ct" "$rt" "$st"
done
row() { printf '%s' "$rows" | awk -v s="$1" '$1 == s'; }
r1g=$(row 1G) r1m=$(row 1M)
if [ -n "$r1g" ]; then
    ckpt_1g=$(echo "$r1g" | awk '{ print $2 }') restart_1g=$(echo "$r1g" | awk '{ print $3 }')
    b1g=$(echo "$r1g" | awk '{ print $4 }')
fi
[ -n "$r1m" ] && b1m=$(echo "$r1m" | awk '{ print $4 }') &&
    [ "$b1m" != null ] && image_1m=$(awk -v b="$b1m" 'BEGIN { printf "%.2f", b / 1e6 }')

# verdict VALUE LIMIT: true/false/null
verdict() { if [ "$1" = null ] || [ "$2" = null ]; then echo null; else awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "true" : "false" }'; fi; }
ckpt_target=null restart_target=null
if [ "${b1g:-null}" != null ]; then
    ckpt_target=$(awk -v b="$b1g" -v w="$write_mbps" 'BEGIN { printf "%.3f", 1.5 * b / 1e6 / w + 0.05 }')
    restart_target=$(awk -v b="$b1g" -v r="$read_mbps" 'BEGIN { printf "%.3f", 1.5 * b / 1e6 / r + 0.05 }')
fi
ckpt_ok=$(verdict "$ckpt_1g" "$ckpt_target")
restart_ok=$(verdict "$restart_1g" "$restart_target")
image_ok=$(if [ "$image_1m" = null ]; then echo null; else awk -v v="$image_1m" 'BEGIN { print (v < 5) ? "true" : "false" }'; fi)
loop_ok=$(if [ "$overhead" = null ]; then echo null; else awk -v v="$overhead" 'BEGIN { print (v < 1) ? "true" : "false" }'; fi)

echo
echo "compute loop (best of 5, $ITERS iterations): CPU plain ${plain_cpu:-failed} s, under the runtime ${mana_cpu} s: overhead ${overhead} %"
echo "  (wall: plain ${plain_s:-failed} s, under the runtime ${mana_s} s: ${wall_overhead} %)"
echo
echo "targets:"
echo "  checkpoint 1 GiB <= 1.5 x bytes/write + 50 ms: ${ckpt_1g} s vs ${ckpt_target} s -> $ckpt_ok"
echo "  restart 1 GiB    <= 1.5 x bytes/read + 50 ms:  ${restart_1g} s vs ${restart_target} s -> $restart_ok"
echo "  idle 1 MiB image < 5 MB:                       ${image_1m} MB -> $image_ok"
echo "  loop overhead < 1 %:                           ${overhead} % -> $loop_ok"
# ---- 4. full against incremental checkpoints (bench_incremental.sh) -----------
incr_json=
if [ "${MANA_BENCH_NO_INCR:-}" != 1 ]; then
    echo
    incr_out=$("$ROOT/core-native/bench/bench_incremental.sh" 2>&1)
    printf '%s\n' "$incr_out" | sed '$d'
    last=$(printf '%s\n' "$incr_out" | tail -n 1)
    case $last in "{"*"}") incr_json=", ${last#\{}"; incr_json=${incr_json%\}} ;; esac
fi
echo "{\"ckpt_s_1g\": $ckpt_1g, \"restart_s_1g\": $restart_1g, \"write_mbps\": $write_mbps, \"read_mbps\": $read_mbps, \"image_mb_1m\": $image_1m, \"loop_overhead_pct\": $overhead, \"loop_wall_overhead_pct\": $wall_overhead, \"ckpt_target_s_1g\": $ckpt_target, \"restart_target_s_1g\": $restart_target, \"ckpt_ok\": $ckpt_ok, \"restart_ok\": $restart_ok, \"image_ok\": $image_ok, \"loop_ok\": $loop_ok, \"read_cold\": $([ "$res" = 0 ] && echo true || echo false)$incr_json}"
