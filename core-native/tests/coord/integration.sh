#!/bin/sh
# integration.sh MANA_ROOT PROBE - the C client against the real coordinator:
# two probe ranks doing barriers and reductions, a checkpoint answered by
# probe ranks (committed, failed, exit-after-commit), a wrong secret and a
# duplicate rank refused.  Skips (77) until bin/mana_coordinator exists.
set -u
ROOT=$1 PROBE=$2
[ -x "$ROOT/bin/mana_coordinator" ] || { echo "FAIL: $ROOT/bin/mana_coordinator not built (make build)"; exit 1; }

tmp=$(mktemp -d /tmp/mana_coord_it.XXXXXX) || exit 2
rcf=$tmp/coord.rc
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    [ -r "$rcf" ] && cpid=$(sed -n 's/^Pid: *//p' "$rcf") && [ -n "$cpid" ] && kill "$cpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# The coordinator writes the status file (port 0 = any free port).
HOME=$tmp "$ROOT/bin/mana_coordinator" --status-file "$rcf" -p 0 > "$tmp/coord.out" 2>&1 &
pids="$pids $!"
i=0
while ! grep -q '^Secret:' "$rcf" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 300 ] || { echo "FAIL: coordinator wrote no status file"; cat "$tmp/coord.out"; exit 1; }
    sleep 0.1
done
export MANA_RC=$rcf
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET DMTCP_COORD_HOST DMTCP_COORD_PORT
echo "coordinator: $(tr '\n' ' ' < "$rcf" | sed 's/Secret: [0-9a-f]*/Secret: .../')"

# Keeps the coordinator alive between steps (it exits when the last rank leaves).
timeout 100 "$PROBE" -q -j hold --serve-for 90 > "$tmp/hold.out" 2>&1 &
pids="$pids $!"

# wait_for_line FILE TEXT [SECONDS]: until FILE holds TEXT (an event, not a guessed delay); 1 on timeout.
wait_for_line() {
    n=$(( ${3:-30} * 20 ))
    until grep -q -- "$2" "$1" 2>/dev/null; do
        n=$((n - 1)); [ $n -gt 0 ] || return 1
        sleep 0.05
    done
}
# registered NAME: both serving probes of job NAME have their WELCOME ("connected to" on stdout)
registered() {
    wait_for_line "$tmp/$1.0" "connected to" && wait_for_line "$tmp/$1.1" "connected to" ||
        { fail "$1: the serving probes did not register"; cat "$tmp/$1.0" "$tmp/$1.1"; }
}

# pair NAME ARGS...: ranks 0 and 1 of job NAME run concurrently; both exit 0.
pair() {
    name=$1
    shift
    timeout 60 "$PROBE" -j "$name" -r 0 -n 2 "$@" > "$tmp/$name.0" 2>&1 &
    a=$!
    timeout 60 "$PROBE" -j "$name" -r 1 -n 2 "$@" > "$tmp/$name.1" 2>&1
    sb=$?
    wait $a
    sa=$?
    if [ $sa = 0 ] && [ $sb = 0 ]; then
        ok "$name: $(grep collectives "$tmp/$name.0")"
    else
        fail "$name: exit $sa/$sb"; cat "$tmp/$name.0" "$tmp/$name.1"
    fi
}
pair barriers -k 500
pair sum --op sum -k 200
pair max --op max -k 50
pair min --op min -k 50
pair or --op or -k 50

# Ranks that disagree on the op: both get ERROR MISMATCH (exit 1), nobody hangs.
timeout 30 "$PROBE" -j mm -r 0 -n 2 --op sum -k 1 > "$tmp/mm.0" 2>&1 &
a=$!
timeout 30 "$PROBE" -j mm -r 1 -n 2 --op max -k 1 > "$tmp/mm.1" 2>&1
sb=$?
wait $a
sa=$?
[ $sa = 1 ] && [ $sb = 1 ] && grep -q "coordinator error 5" "$tmp/mm.0" && ok "op mismatch refused" ||
    { fail "op mismatch: exit $sa/$sb"; cat "$tmp/mm.0" "$tmp/mm.1"; }

# A checkpoint answered by two serving probes; then one with exit-after-commit.
timeout 60 "$PROBE" -j ck -r 0 -n 2 --serve-for 50 --ckptdir "$tmp" > "$tmp/ck.0" 2>&1 &
s0=$!
timeout 60 "$PROBE" -j ck -r 1 -n 2 --serve-for 50 --ckptdir "$tmp" > "$tmp/ck.1" 2>&1 &
s1=$!
pids="$pids $s0 $s1"
registered ck
if out=$(timeout 30 "$PROBE" -j ck --checkpoint 2>&1) && echo "$out" | grep -q "checkpoint ok generation=1 .* ranks=2"; then
    ok "checkpoint: $out"
else
    fail "checkpoint: $out"
fi
if out=$(timeout 30 "$PROBE" -j ck --checkpoint --exit 2>&1) && echo "$out" | grep -q "generation=2"; then
    ok "checkpoint and exit: $out"
else
    fail "checkpoint and exit: $out"
fi
wait $s0 && wait $s1 && grep -q "checkpoint 2 committed" "$tmp/ck.0" && ok "ranks exited after commit" ||
    { fail "ranks did not exit after commit"; cat "$tmp/ck.0" "$tmp/ck.1"; }

# A rank that reports CKPT_FAILED: the checkpoint fails, both ranks go on.
timeout 60 "$PROBE" -j bad -r 0 -n 2 --serve-for 50 > "$tmp/bad.0" 2>&1 &
b0=$!
timeout 60 "$PROBE" -j bad -r 1 -n 2 --serve-for 50 --fail-ckpt > "$tmp/bad.1" 2>&1 &
b1=$!
pids="$pids $b0 $b1"
registered bad
if out=$(timeout 30 "$PROBE" -j bad --checkpoint 2>&1); then
    fail "failing checkpoint reported ok: $out"
else
    ok "failed checkpoint: $out"
fi
wait_for_line "$tmp/bad.0" "aborted" && kill -0 $b0 2>/dev/null && kill -0 $b1 2>/dev/null &&
    ok "ranks saw the abort and went on" || { fail "abort not seen"; cat "$tmp/bad.0" "$tmp/bad.1"; }

# Refusals: wrong secret; duplicate rank.
out=$(MANA_COORD_SECRET=00 timeout 20 "$PROBE" -j x -k 1 2>&1)
[ $? = 3 ] && echo "$out" | grep -q "coordinator error 3" && ok "wrong secret: $out" || fail "wrong secret: $out"
out=$(timeout 20 "$PROBE" -j bad -r 0 -n 2 -k 1 2>&1)
[ $? = 3 ] && echo "$out" | grep -q "coordinator error 10" && ok "duplicate rank: $out" || fail "duplicate rank: $out"

[ "$fails" = 0 ] && echo "coord integration: all ok" || echo "coord integration: $fails failure(s)"
[ "$fails" = 0 ]
