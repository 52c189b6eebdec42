#!/bin/bash
# check_image.sh ROOT PROGDIR - `lower-half --check IMAGE` (core-native/src/lower-half/image_check.c).
#
# Checkpoints the counter test program under the real coordinator, then: the image passes (exit 0, one
# summary line on stdout, nothing on stderr), also under the lower halves built against an MPI; each
# damaged copy (truncated, a byte flipped in the header / a payload / a section / the table, bytes
# appended, renamed to another program or generation, not an image at all) fails with exit 1 and one
# line on stderr naming the problem.  Nothing is restored.  Exit 0 pass, 1 fail, 77 no coordinator.
set -u
ROOT=$1 PROGDIR=$2
B=$ROOT/bin
[ -x "$B/mana_coordinator" ] && [ -x "$B/mana_status" ] || { echo "FAIL: $B/mana_coordinator not built (make build)"; exit 1; }
[ -x "$B/lower-half" ] || { echo "FAIL: runtime not installed in $ROOT"; exit 1; }

W=$(mktemp -d /tmp/mana-checkimg.XXXXXX)
export MANA_RC=$W/coord.rc
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_CKPT_DIR MANA_DEBUG MANA_QUIET MANA_NO_COORD
PID=
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
    [ -r "$MANA_RC" ] && timeout 10 "$B/mana_status" --quit >/dev/null 2>&1
    rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---- a real image: the counter, checkpointed while it counts ----
"$B/mana_coordinator" -p 0 --no-exit-on-last --status-file "$MANA_RC" --log-file "$W/coord.log" \
    > /dev/null 2>&1 || fail "coordinator did not start"
"$B/mana_launch" --ckptdir "$W/ck" "$PROGDIR/counter" 100000 10 > "$W/a.out" 2> "$W/a.err" &
PID=$!
for i in $(seq 400); do [ "$(grep -c '^count' "$W/a.out" 2>/dev/null)" -ge 3 ] && break; sleep 0.05; done
[ "$(grep -c '^count' "$W/a.out")" -ge 3 ] || fail "the counter did not start: $(cat "$W/a.err")"
timeout 60 "$B/mana_status" --checkpoint > "$W/status" 2>&1 || fail "checkpoint failed: $(cat "$W/status")"
kill -9 "$PID"; wait "$PID" 2>/dev/null; PID=
img=$(ls "$W"/ck/ckpt_rank_0/ckpt_counter_gen*.mana 2>/dev/null | head -n 1)
[ -n "$img" ] || fail "no image written"
size=$(stat -c %s "$img")
echo "# image $(basename "$img"), $size bytes"

# expect_ok LOWER_HALF FILE
expect_ok() {
    "$1" --check "$2" > "$W/out" 2> "$W/err"; local rc=$?
    [ $rc -eq 0 ] || fail "$(basename "$1") --check $(basename "$2"): exit $rc: $(cat "$W/err")"
    [ ! -s "$W/err" ] || fail "good image: stderr: $(cat "$W/err")"
    [ "$(wc -l < "$W/out")" -eq 1 ] || fail "good image: want one summary line, got: $(cat "$W/out")"
    grep -q ": ok: program counter, generation 1, rank 0 of 1, mpi none, [0-9]* regions" "$W/out" ||
        fail "summary: $(cat "$W/out")"
    echo "# ok: $(cat "$W/out")"
}
# expect_bad WHAT PATTERN FILE: exit 1, one line on stderr matching PATTERN, nothing on stdout
expect_bad() {
    local what=$1 pat=$2 f=$3
    timeout 20 "$B/lower-half" --check "$f" > "$W/out" 2> "$W/err"; local rc=$?
    [ $rc -eq 1 ] || fail "$what: exit $rc (want 1): $(cat "$W/err")"
    [ "$(wc -l < "$W/err")" -eq 1 ] || fail "$what: want one line on stderr, got: $(cat "$W/err")"
    [ ! -s "$W/out" ] || fail "$what: stdout: $(cat "$W/out")"
    grep -q -- "$pat" "$W/err" || fail "$what: '$(cat "$W/err")' does not say '$pat'"
    echo "# $what -> $(cat "$W/err")"
}
le64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
le32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
flip() {   # flip FILE OFFSET: xor the byte with 0x5a
    local b; b=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
    printf "\\x$(printf %02x $(( b ^ 0x5a )))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

expect_ok "$B/lower-half" "$img"
for flavor in openmpi mpich; do [ -x "$B/lower-half-$flavor" ] && expect_ok "$B/lower-half-$flavor" "$img"; done
cp "$img" "$W/copy.mana"
expect_ok "$B/lower-half" "$W/copy.mana"         # a copy under another kind of name: no name rule

D=$W/bad/ckpt_rank_0
mkdir -p "$D"
t=$D/$(basename "$img")
head -c $((size / 2)) "$img" > "$t";   expect_bad "truncated to half" "truncated: the file has" "$t"
head -c $((size - 8)) "$img" > "$t";   expect_bad "short by 8 bytes" "truncated: the file has" "$t"
head -c 100 "$img" > "$t";             expect_bad "shorter than a header" "truncated: 100 bytes" "$t"
: > "$t";                              expect_bad "empty" "truncated: 0 bytes" "$t"
cp "$img" "$t"; printf 'x' >> "$t";    expect_bad "a byte appended" "corrupt: 1 bytes follow the end" "$t"
cp "$img" "$t"; flip "$t" 0;           expect_bad "magic" "not a MANA checkpoint image: bad magic" "$t"
cp "$img" "$t"; flip "$t" 60;          expect_bad "header (pid)" "corrupt: header: checksum mismatch" "$t"
cp "$img" "$t"; flip "$t" 1000;        expect_bad "page 0 after the header" "byte 1000 of page 0" "$t"
table=$(le64 "$img" 24)
cp "$img" "$t"; flip "$t" $((table + 8)); expect_bad "section table (an offset)" "corrupt: section 0" "$t"
# the first region with stored pages: a byte of its payload
mem_off= n=$(le32 "$img" 32)
for i in $(seq 0 $((n - 1))); do
    e=$((table + 32 * i))
    [ "$(le32 "$img" $e)" = 2 ] && mem_off=$(le64 "$img" $((e + 8)))
done
[ -n "$mem_off" ] || fail "no MEMORY section in the table"
cp "$img" "$t"; flip "$t" $((mem_off + 20)); expect_bad "MEMORY section" "section MEMORY (offset $mem_off): checksum mismatch" "$t"
payload=$(od -An -t u8 -j $((mem_off + 48)) -N 8 "$img" | tr -d ' ')
r=$mem_off
while [ "$payload" = 0 ]; do   # walk the region records: 80 bytes, the name padded to 8, the runs
    nl=$(le32 "$img" $((r + 72))); rc=$(le32 "$img" $((r + 64)))
    r=$((r + 80 + (nl + 7) / 8 * 8 + 16 * rc))
    payload=$(le64 "$img" $((r + 48)))
done
cp "$img" "$t"; flip "$t" $((payload + 100)); expect_bad "a payload byte" "payload at offset $payload: checksum mismatch" "$t"
cp "$img" "$D/ckpt_other_gen1.mana"
expect_bad "renamed to another program" "renamed: holds a checkpoint of 'counter' (generation 1)" "$D/ckpt_other_gen1.mana"
cp "$img" "$D/ckpt_counter_gen9.mana"
expect_bad "renamed to another generation" "expected the name ckpt_counter_gen1.mana" "$D/ckpt_counter_gen9.mana"
head -c 8192 /dev/zero > "$W/zeros";   expect_bad "not an image" "not a MANA checkpoint image" "$W/zeros"
expect_bad "missing file" "cannot open: No such file" "$W/nonexistent.mana"
expect_bad "a directory" "not a regular file" "$W"
"$B/lower-half" --check > /dev/null 2> "$W/err"; rc=$?
[ $rc -eq 2 ] && grep -q "usage: lower-half --check IMAGE" "$W/err" || fail "no argument: exit $rc, $(cat "$W/err")"
cmp -s "$img" "$W/copy.mana" || fail "the image changed"
echo "PASS"
