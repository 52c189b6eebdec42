#!/bin/bash
# sanitize_images.sh ROOT PROGDIR CHECKER - the image checker built with ASan and UBSan (CHECKER,
# check_image_main.c) over real images and a fixed set of damaged copies of them.
#
# Images: the counter test program checkpointed plainly and with MANA_COMPRESS=fast on 3 threads
# (zstd frames), without a coordinator (MANA_NO_COORD: the checkpoint signal takes one). Each good
# image must pass. Then, for each, 200 copies with 1 to 8 bytes changed (a seeded generator: the same
# copies every run; most in the header, the section table and the sections, where the parser decides
# sizes and offsets, the rest anywhere) and 40 truncated or extended ones: the checker must accept or
# refuse each (exit 0 or 1, as `lower-half --check`), never crash or trip a sanitizer. Exit 0 pass,
# 1 fail.
set -u
ROOT=$1 PROGDIR=$2 CHECKER=$3
B=$ROOT/bin
[ -x "$B/mana_launch" ] || { echo "FAIL: runtime not installed in $ROOT"; exit 1; }
[ -x "$CHECKER" ] || { echo "FAIL: $CHECKER not built"; exit 1; }
W=$(mktemp -d /tmp/mana-sanitize.XXXXXX)
PID=
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_CKPT_DIR MANA_INCREMENTAL MANA_FORKED MANA_COMPRESS \
      MANA_COMPRESS_THREADS MANA_QUIET
export MANA_NO_COORD=1 MANA_DEBUG=1
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87

# image NAME [ENV...]: checkpoint the counter once, print the image's path
image() {
    local name=$1; shift
    env "$@" "$B/mana_launch" --ckptdir "$W/$name" "$PROGDIR/counter" 1000000 20 > "$W/$name.out" 2> "$W/$name.err" &
    PID=$!
    local i
    for i in $(seq 600); do [ "$(grep -c '^count' "$W/$name.out" 2>/dev/null)" -ge 2 ] && break; sleep 0.05; done
    [ "$(grep -c '^count' "$W/$name.out")" -ge 2 ] || fail "$name: the counter did not start: $(tail -n 3 "$W/$name.err")"
    kill -40 "$PID"
    for i in $(seq 600); do ls "$W/$name"/ckpt_rank_0/*.mana > /dev/null 2>&1 && break; sleep 0.05; done
    kill -9 "$PID"; wait "$PID" 2>/dev/null; PID=
    local img
    img=$(ls "$W/$name"/ckpt_rank_0/*.mana 2>/dev/null | head -n 1)
    [ -n "$img" ] || fail "$name: no image written: $(tail -n 3 "$W/$name.err")"
    echo "$img"
}
plain=$(image plain) || exit 1
zstd=$(image zstd MANA_COMPRESS=fast MANA_COMPRESS_THREADS=3) || exit 1

total=0
for img in "$plain" "$zstd"; do
    "$CHECKER" "$img" > "$W/out" 2>&1 || fail "good image $(basename "$img") refused: $(cat "$W/out")"
    grep -q ": ok: program counter" "$W/out" || fail "good image: $(cat "$W/out")"
    echo "# $(cat "$W/out")"
    refused=0 accepted=0
    python3 - "$img" "$W/mutants" <<'PY' || fail "cannot make the damaged copies"
import os, random, struct, sys
src, out = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()
os.makedirs(out, exist_ok=True)
rng = random.Random(20261202 + len(data) % 1000)
# where the parser reads sizes and offsets: the header page, and the sections at the end of the file
table_off = struct.unpack_from('<Q', data, 24)[0] if len(data) > 32 else 0   # section_table_offset
hot = [(0, 4096), (min(table_off, len(data)), len(data))]
sections_from = max(4096, len(data) - 256 * 1024)
hot.append((sections_from, len(data)))
for k in range(200):
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if rng.random() < 0.8:
            lo, hi = rng.choice(hot)
        else:
            lo, hi = 0, len(b)
        if hi <= lo:
            lo, hi = 0, len(b)
        i = rng.randrange(lo, hi)
        b[i] = rng.choice([0, 0xff, b[i] ^ (1 << rng.randrange(8)), rng.randrange(256)])
    open(os.path.join(out, 'flip_%03d' % k), 'wb').write(b)
for k in range(40):
    if k % 3 == 2:
        b = data + bytes(rng.randrange(1, 9000))
    else:
        b = data[:rng.randrange(0, len(data))]
    open(os.path.join(out, 'size_%03d' % k), 'wb').write(b)
PY
    # all in one process (the sanitizers start once); the checker's own messages go to out.err
    timeout 240 "$CHECKER" "$W"/mutants/* > "$W/out" 2> "$W/out.err"; rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] ||
        fail "$(basename "$img"): the checker ended with $rc after $(tail -n 1 "$W/out"): $(grep -m1 -A25 'runtime error\|AddressSanitizer' "$W/out.err")"
    grep -q "runtime error\|AddressSanitizer" "$W/out.err" && fail "$(grep -m1 -A25 'runtime error\|AddressSanitizer' "$W/out.err")"
    [ "$(grep -c '^checked ' "$W/out")" = "$(ls "$W"/mutants | wc -l)" ] || fail "not every damaged copy was checked: $(tail -n 2 "$W/out")"
    refused=$(grep -c ' 1$' "$W/out") accepted=$(grep -c ' 0$' "$W/out")
    total=$((total + accepted + refused))
    echo "# $(basename "$img"): $refused damaged copies refused, $accepted accepted (bytes the checker does not read)"
    [ "$refused" -ge 200 ] || fail "only $refused of 240 damaged copies refused"
    rm -rf "$W/mutants"
done
echo "# $total damaged copies checked under ASan and UBSan"
