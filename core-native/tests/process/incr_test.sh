#!/bin/bash
# incr_test.sh ROOT INCRMEM SCENARIO - incremental checkpoints (docs/image-format.md) of a real
# process under the real runtime, restarted and checked word by word (incrmem.c).
#
#   chain      10 generations, a full image and 9 incremental ones: every image stays (the chain),
#              the incremental ones are small, the restart from the 10th has every word right
#   retention  6 generations with MANA_INCREMENTAL_FULL_EVERY=3: full images 1 and 4; the commit of 4
#              removes 1-3 (the older chain), 5 and 6 stay on 4; the restart from 6 reads 4, 5, 6
#   refused    a chain of 4: a corrupt, a truncated, a replaced and a deleted image of the chain are
#              each refused by the restart with a message that says which and why (and nothing is
#              changed); the untouched chain then restarts right
#   compressed a chain of 4 written with MANA_COMPRESS=fast by 3 compression threads: every image's
#              regions are zstd-compressed, a large region in several frames (lower-half --check
#              decompresses each and checks its CRC), the full image is at least 2x
#              smaller than the same program's uncompressed one, the restart has every word right; a
#              byte changed inside a compressed payload is refused by name
#   mostly     tests/programs/dirtier (16 MiB): after all its pages changed, the image asked for as
#              incremental is written full (a restart would read the pages twice); 1 % changed after that
#              is incremental on it
#   forked     MANA_FORKED: 3 checkpoints, each written by a writer process while the program goes on
#              and changes the same pages (the next step, made while the writer is held back); the
#              restart from the 3rd finds the memory of its moment word by word ("verify 3 ok")
#   forked_kill_program  the program is killed while its writer writes generation 2: the writer dies
#              with it, generation 1 stays the newest and intact, the restart resumes from it ("verify 1 ok")
#   forked_kill_writer   the writer of generation 2 is killed: that checkpoint fails saying so, the
#              program goes on, no .tmp is left, generation 1 stays; the next checkpoint (generation 2
#              again: without a coordinator the plugin numbers them) is written and the restart resumes
#              from it
#
# Checkpoints are taken without a coordinator (MANA_NO_COORD, MANA_DEBUG: the checkpoint signal
# triggers one); the harness waits for each image to be committed (renamed into place) before it
# lets the program go on.  Exit 0 pass, 1 fail, 77 skipped (the kernel cannot track written pages).
set -u
ROOT=$1 INCRMEM=$2 SCENARIO=$3
. "$(dirname -- "$(readlink -f -- "$0")")/../lib/cannot.sh"     # cannot KEY WHY: skip only where asked
B=$ROOT/bin
[ -x "$B/lower-half" ] && [ -r "$ROOT/lib/libmana.so" ] || { echo "FAIL: runtime not installed in $ROOT"; exit 1; }
[ -x "$INCRMEM" ] || { echo "FAIL: $INCRMEM not built"; exit 1; }
W=$(mktemp -d /tmp/mana-incr.XXXXXX)
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_CKPT_DIR MANA_TIMING MANA_QUIET MANA_DIRECT_IO \
      MANA_INCREMENTAL_FULL_EVERY MANA_COMPRESS MANA_COMPRESS_THREADS
export MANA_NO_COORD=1 MANA_DEBUG=1 MANA_INCREMENTAL=1
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    if [ "${KEEP:-}" ]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$W"/*.out "$W"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -n 12 "$f"; }; done; exit 1; }
note() { echo "# $*"; }
R=$W/ck/ckpt_rank_0
img() { echo "$R/ckpt_incrmem_gen$1.mana"; }

# wait_for TIMEOUT_S WHAT CMD...: until CMD succeeds
wait_for() {
    local lim=$(( $1 * 20 )) what=$2 i=0; shift 2
    until "$@"; do sleep 0.05; i=$((i + 1)); [ $i -lt $lim ] || fail "timeout waiting for $what"; done
}
has_line() { grep -qx "$2" "$1" 2>/dev/null; }

# run_gens N: launch incrmem, checkpoint after each of its N generations (each committed before the
# next step), then kill it
run_gens() {
    local n=$1 g
    mkdir -p "$W/data"
    "$B/mana_launch" --incremental --ckptdir "$W/ck" "$INCRMEM" "$W/data" "$n" > "$W/a.out" 2> "$W/a.err" &
    PID=$!
    PIDS+=("$PID")
    for g in $(seq 1 "$n"); do
        wait_for 30 "ready $g" has_line "$W/a.out" "ready $g"
        kill -40 "$PID"
        wait_for 30 "image of generation $g" test -e "$(img "$g")"
        # the commit is the rename; the program resumes after the folder's cleanup
        touch "$W/data/go_$g"
    done
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    grep -q "incremental checkpoints were asked for, but" "$W/a.err" &&
        cannot softdirty "$(grep -m1 'incremental checkpoints were asked for' "$W/a.err")"
    grep -q FAIL "$W/a.out" && fail "the program failed before the restart"
}

# restart_check: restart from the folder, let it verify, want "verify ok"
restart_check() {
    rm -f "$W/data/go_final"
    "$B/mana_restart" --restartdir "$W/ck" > "$W/b.out" 2> "$W/b.err" &
    local p=$!
    PIDS+=("$p")
    # the restarted process is back once the lower half's restore is done: it waits for go_final
    touch "$W/data/go_final"
    local i=0
    while kill -0 "$p" 2>/dev/null; do sleep 0.05; i=$((i + 1)); [ $i -lt 1200 ] || fail "restart still running after 60 s"; done
    wait "$p"; local rc=$?
    [ "$rc" = 0 ] || fail "restarted run exited with $rc: $(tail -n 3 "$W/b.err")"
    grep -q "^verify ok" "$W/b.out" || fail "no verify line after restart: $(tail -n 3 "$W/b.out")"
    note "$(grep '^verify ok' "$W/b.out")"
}

# refuse WHAT PATTERN: a restart must fail, and say PATTERN
refuse() {
    local what=$1 pat=$2
    timeout 60 "$B/mana_restart" --restartdir "$W/ck" > "$W/r.out" 2> "$W/r.err"
    local rc=$?
    [ "$rc" != 0 ] || fail "$what: the restart went ahead"
    grep -q "$pat" "$W/r.err" || fail "$what: the refusal does not say '$pat': $(tail -n 2 "$W/r.err")"
    grep -q "^verify\|ready" "$W/r.out" && fail "$what: the program ran"
    note "$what refused: $(grep -m1 'cannot restart' "$W/r.err")"
}

check_img() { "$B/lower-half" --check "$1" 2>&1; }

# Forked checkpoints: the writer process waits for $W/hold before it writes (MANA_TEST_WRITER_HOLD)
fimg() { echo "$R/ckpt_incrmem_gen$1.mana"; }
writers() { grep -c "writer process [0-9]* writes" "$W/a.err" 2>/dev/null; }
writers_at_least() { [ "$(writers)" -ge "$1" ]; }
writer_pid() { grep -o "writer process [0-9]* writes" "$W/a.err" | sed -n "$1s/[^0-9]//gp"; }
launch_forked() {   # launch_forked GENS
    unset MANA_INCREMENTAL
    export MANA_FORKED=1 MANA_TEST_WRITER_HOLD=$W/hold
    mkdir -p "$W/data"
    "$B/mana_launch" --forked --ckptdir "$W/ck" "$INCRMEM" "$W/data" "$1" each > "$W/a.out" 2> "$W/a.err" &
    PID=$!
    PIDS+=("$PID")
}
# restart_resumes G: restart from the folder; the program, back in its wait for go_G, finds its memory
# equal to the replay of steps 1..G ("verify G ok"), the image's moment word by word.  It is stopped
# there: a private file mapping comes back as anonymous memory with the same bytes (restore.c), so the
# next even step's MADV_DONTNEED on D would give zeros, not the file's words (docs/architecture.md).
restart_resumes() {
    local g=$1
    "$B/mana_restart" --restartdir "$W/ck" > "$W/b.out" 2> "$W/b.err" &
    local p=$!
    PIDS+=("$p")
    wait_for 60 "verify $g after the restart" grep -q "^verify $g ok" "$W/b.out"
    grep -q FAIL "$W/b.out" && fail "the restarted program failed"
    note "restarted: $(grep "^verify $g ok" "$W/b.out")"
    kill -9 "$p"; wait "$p" 2>/dev/null
}

# held_second: generation 1 written (not held), then the checkpoint of generation 2 with its writer
# held; WP = that writer's pid, SUM1 = generation 1's checksum
held_second() {
    launch_forked 3
    touch "$W/hold"
    wait_for 30 "ready 1" has_line "$W/a.out" "ready 1"
    kill -40 "$PID"
    wait_for 30 "image of generation 1" test -e "$(fimg 1)"
    SUM1=$(sha256sum < "$(fimg 1)")
    touch "$W/data/go_1"
    wait_for 30 "ready 2" has_line "$W/a.out" "ready 2"
    rm -f "$W/hold"
    kill -40 "$PID"
    wait_for 30 "writer process 2" writers_at_least 2
    WP=$(writer_pid 2)
    kill -0 "$WP" 2>/dev/null || fail "writer process $WP is not running"
}

# forked_gen G: checkpoint at generation G with the writer held until the program has made step G+1
forked_gen() {
    local g=$1
    wait_for 30 "ready $g" has_line "$W/a.out" "ready $g"
    rm -f "$W/hold"
    kill -40 "$PID"
    wait_for 30 "writer process $g" writers_at_least "$g"
    touch "$W/data/go_$g"
    wait_for 30 "ready $((g + 1)) (memory changed while the writer waits)" has_line "$W/a.out" "ready $((g + 1))"
    [ -e "$(fimg "$g")" ] && fail "generation $g was committed before its writer wrote"
    touch "$W/hold"
    wait_for 30 "image of generation $g" test -e "$(fimg "$g")"
}
stored() { check_img "$1" | sed -n 's/.*, \([0-9]*\) bytes stored.*/\1/p'; }

case $SCENARIO in

chain)
    export MANA_INCREMENTAL_FULL_EVERY=10
    run_gens 10
    full=$(stored "$(img 1)")
    [ -n "$full" ] || fail "generation 1: $(check_img "$(img 1)")"
    check_img "$(img 1)" | grep -q "incremental" && fail "generation 1 is not a full image"
    for g in $(seq 2 10); do
        out=$(check_img "$(img "$g")") || fail "generation $g: $out"
        echo "$out" | grep -q "incremental on ckpt_incrmem_gen$((g - 1)).mana (generation $((g - 1)), depth $((g - 1)))" ||
            fail "generation $g is not incremental on $((g - 1)): $out"
        s=$(stored "$(img "$g")")
        # the program changes about 300 pages between generations (a 1 MiB window every third one);
        # the rest of its ~33 MiB, and of the runtime's libraries, must be left to the parent
        [ "$s" -lt $(( full / 4 )) ] || fail "generation $g stores $s bytes; the full image stores $full"
        note "generation $g: $s bytes stored (full: $full)"
    done
    restart_check
    ;;

retention)
    export MANA_INCREMENTAL_FULL_EVERY=3
    run_gens 6
    have=$(cd "$R" && ls ckpt_incrmem_gen*.mana | sort -V | tr '\n' ' ')
    [ "$have" = "ckpt_incrmem_gen4.mana ckpt_incrmem_gen5.mana ckpt_incrmem_gen6.mana " ] ||
        fail "the folder holds $have, want generations 4 (full), 5 and 6"
    check_img "$(img 4)" | grep -q incremental && fail "generation 4 is not a full image"
    check_img "$(img 5)" | grep -q "incremental on ckpt_incrmem_gen4.mana" || fail "generation 5 is not on 4"
    check_img "$(img 6)" | grep -q "incremental on ckpt_incrmem_gen5.mana (generation 5, depth 2)" || fail "generation 6 is not on 5"
    restart_check
    ;;

refused)
    export MANA_INCREMENTAL_FULL_EVERY=10
    run_gens 4
    cp -p "$(img 3)" "$W/gen3.saved"
    sum_before=$(cd "$R" && sha256sum ckpt_* | sha256sum)
    # a payload byte of generation 3 (its first stored page: at offset 4096)
    printf '\x5a' | dd of="$(img 3)" bs=1 seek=4100 conv=notrunc status=none
    refuse "corrupt generation 3" "ckpt_incrmem_gen3.mana is corrupt (checksum mismatch"
    cp -p "$W/gen3.saved" "$(img 3)"
    truncate -s -100 "$(img 3)"
    refuse "truncated generation 3" "needs .*ckpt_incrmem_gen3.mana, which cannot be used: .*truncated"
    cp -p "$W/gen3.saved" "$(img 3)"
    # generation 3 replaced by another image of generation 3 (a copy of 4 with 3's header fields would
    # be caught by the CRC; a real other image: the header CRC in generation 4's PARENT record)
    python3 - "$(img 3)" <<'PY' || fail "cannot rewrite generation 3"
import struct, sys, zlib
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
# time_unix_ns (offset 64) changed and the header CRC (offset 88) recomputed: a valid image of the
# same generation that is not the one generation 4 was written on
struct.pack_into('<q', b, 64, struct.unpack_from('<q', b, 64)[0] + 1)
struct.pack_into('<I', b, 88, 0)
def crc32c(data):
    crc = 0xFFFFFFFF
    for x in data:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
struct.pack_into('<I', b, 88, crc32c(bytes(b[:256])))
open(p, 'wb').write(b)
PY
    "$B/lower-half" --check "$(img 3)" > /dev/null 2>&1 || fail "the rewritten generation 3 is not a valid image"
    refuse "replaced generation 3" "ckpt_incrmem_gen3.mana is not the parent .*ckpt_incrmem_gen4.mana was written on"
    cp -p "$W/gen3.saved" "$(img 3)"
    mv "$(img 3)" "$W/gen3.moved"
    refuse "deleted generation 3" "needs .*ckpt_incrmem_gen3.mana (generation 3), which is gone"
    mv "$W/gen3.moved" "$(img 3)"
    sum_after=$(cd "$R" && sha256sum ckpt_* | sha256sum)
    [ "$sum_before" = "$sum_after" ] || fail "the refused restarts changed the checkpoint folder"
    restart_check
    ;;

compressed)
    # 3 compression threads whatever the cores: each region's pages go out as frames of 4 MiB from
    # whichever thread compressed them, and must come back in order
    export MANA_INCREMENTAL_FULL_EVERY=10 MANA_COMPRESS=fast MANA_COMPRESS_THREADS=3
    run_gens 4
    for g in 1 2 3 4; do
        out=$(check_img "$(img "$g")") || fail "generation $g: $out"
        case $out in *"regions compressed to"*) ;; *) fail "generation $g is not compressed: $out";; esac
        grep -q "checkpoint $g: zstd level 3, 3 compression threads" "$W/a.err" ||
            fail "generation $g was not compressed by 3 threads: $(grep -m1 "checkpoint $g: zstd" "$W/a.err")"
    done
    # generation 1 holds A (24 MiB) whole: more frames than regions
    regs=$(check_img "$(img 1)" | sed 's/.*, \([0-9]*\) regions compressed to.*/\1/')
    frames=$(check_img "$(img 1)" | sed 's/.* in \([0-9]*\) frames.*/\1/')
    note "generation 1: $regs regions compressed in $frames frames"
    [ "$frames" -ge $(( regs + 5 )) ] || fail "generation 1: $frames frames for $regs regions (24 MiB of A alone make 6)"
    zfull=$(stat -c %s "$(img 1)")
    # A (24 MiB) holds runs of 64 equal words, as program data often repeats itself: zstd at level 3 (fast) must
    # make the full image at least 2x smaller than the pages it holds
    note "compressed full image: $zfull bytes; $(check_img "$(img 1)" | sed 's/.*, \([0-9]*\) bytes stored.*/\1/') bytes of pages"
    stored1=$(stored "$(img 1)")
    [ "$zfull" -lt $(( stored1 / 2 )) ] || fail "the compressed full image ($zfull bytes) is not 2x smaller than its pages ($stored1)"
    restart_check
    # the restart decompressed the multi-frame regions on 3 threads, each frame straight into place
    grep -q "zstd frames on 3 threads" "$W/b.err" ||
        fail "the restart did not decompress on 3 threads: $(grep -m2 'zstd frames' "$W/b.err")"
    # a byte inside generation 1's largest compressed payload (it starts at 4096: the first region's)
    cp -p "$(img 1)" "$W/gen1.saved"
    printf '\x5a' | dd of="$(img 1)" bs=1 seek=5000 conv=notrunc status=none
    refuse "corrupt compressed generation 1" "ckpt_incrmem_gen1.mana.*\(corrupt\|checksum mismatch\)"
    ;;

mostly)
    DIRTIER=$(dirname "$INCRMEM")/../programs/dirtier
    [ -x "$DIRTIER" ] || fail "$DIRTIER not built"
    mkdir -p "$W/data"
    "$B/mana_launch" --incremental --ckptdir "$W/ck" "$DIRTIER" 16M "$W/data" > "$W/a.out" 2> "$W/a.err" &
    PID=$!
    PIDS+=("$PID")
    wait_for 30 "dirtier ready" grep -q "^dirtier ready" "$W/a.out"
    k=0
    ask() { k=$((k + 1)); echo "$1" > "$W/data/req_$k.tmp"; mv "$W/data/req_$k.tmp" "$W/data/req_$k"
            wait_for 30 "answer $k" grep -q "^done $k" "$W/a.out"; }
    dimg() { echo "$R/ckpt_dirtier_gen$1.mana"; }
    kill -40 "$PID"; wait_for 30 "generation 1" test -e "$(dimg 1)"
    ask "dirty 100"
    kill -40 "$PID"; wait_for 30 "generation 2" test -e "$(dimg 2)"
    ask "dirty 1"
    kill -40 "$PID"; wait_for 30 "generation 3" test -e "$(dimg 3)"
    check_img "$(dimg 2)" | grep -q "incremental" && fail "generation 2 (all pages changed) is incremental: $(check_img "$(dimg 2)")"
    grep -q "checkpoint 2: full image (most pages changed)" "$W/a.err" || fail "the log does not say why generation 2 is full"
    check_img "$(dimg 3)" | grep -q "incremental on ckpt_dirtier_gen2.mana" || fail "generation 3 is not incremental on 2: $(check_img "$(dimg 3)")"
    [ -e "$(dimg 1)" ] && fail "generation 1 was kept after the full generation 2"
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    ;;

forked)
    launch_forked 4
    for g in 1 2 3; do forked_gen "$g"; done
    out=$(check_img "$(fimg 3)") || fail "generation 3: $out"
    ls "$R"/*.tmp > /dev/null 2>&1 && fail "a .tmp image was left"
    grep -q "not forked" "$W/a.err" && fail "a checkpoint was not forked: $(grep -m1 'not forked' "$W/a.err")"
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    restart_resumes 3
    ;;

forked_kill_program)
    held_second
    wp=$WP
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    wait_for 30 "the writer to die with the program" eval "! kill -0 $wp 2>/dev/null"
    [ -e "$(fimg 2)" ] && fail "generation 2 was committed"
    [ "$(sha256sum < "$(fimg 1)")" = "$SUM1" ] || fail "generation 1 changed"
    note "writer $wp died with the program; generation 1 intact"
    restart_resumes 1
    ;;

forked_kill_writer)
    held_second
    wp=$WP
    kill -9 "$wp" || fail "cannot kill writer process $wp"
    wait_for 30 "the failed checkpoint" grep -q "checkpoint 2 failed: the writer process $wp was killed by signal 9" "$W/a.err"
    [ -e "$(fimg 2)" ] && fail "generation 2 was committed"
    ls "$R"/*.tmp > /dev/null 2>&1 && fail "a .tmp image was left"
    "$B/lower-half" --check "$(fimg 1)" > /dev/null 2>&1 || fail "generation 1 is not intact"
    touch "$W/data/go_2" "$W/hold"
    wait_for 30 "ready 3" has_line "$W/a.out" "ready 3"
    # the next checkpoint (without a coordinator the plugin numbers them: the failed number again)
    kill -40 "$PID"
    wait_for 30 "the next image" test -e "$(fimg 2)"
    [ -e "$(fimg 1)" ] && fail "generation 1 was kept after the next image"
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    touch "$W/data/go_3"
    restart_resumes 3
    ;;

*) echo "unknown scenario $SCENARIO"; exit 1 ;;
esac
echo "PASS $SCENARIO"
