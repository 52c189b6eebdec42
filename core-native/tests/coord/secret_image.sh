#!/bin/bash
# secret_image.sh ROOT PROGDIR - the coordinator secret stays out of a checkpointed program (issue 9):
# not in its environment (/proc/PID/environ; its children inherit what it has), not on its command line, not in its checkpoint image, and not on the wire (the HELLO of protocol v2 carries none; the
# Java and C tests check the frames).  A real coordinator, mana_launch, the counter program.
# Exit 0 = pass, 1 = fail (also when the coordinator is not built).
set -u
ROOT=$1 PROGDIR=$2
B=$ROOT/bin
[ -x "$B/mana_coordinator" ] && [ -x "$B/mana_status" ] || { echo "FAIL: $B/mana_coordinator not built (make build)"; exit 1; }
[ -x "$B/lower-half" ] && [ -r "$ROOT/lib/libmana.so" ] || { echo "FAIL: runtime not installed in $ROOT"; exit 1; }

W=$(mktemp -d /tmp/mana-secret.XXXXXX)
export MANA_RC=$W/coord.rc
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_COORD_SECRET_FD DMTCP_COORD_HOST DMTCP_COORD_PORT \
      MANA_CKPT_DIR MANA_DEBUG MANA_QUIET MANA_NO_COORD
pid=
cleanup() {
    [ -n "$pid" ] && { kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
    [ -r "$MANA_RC" ] && timeout 10 "$B/mana_status" --quit >/dev/null 2>&1
    rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$W"/*.out "$W"/*.err "$W/coord.log"; do [ -s "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done; exit 1; }

"$B/mana_coordinator" --verbose -p 0 --no-exit-on-last --status-file "$MANA_RC" --log-file "$W/coord.log" \
    > /dev/null 2>&1 || fail "coordinator did not start"
secret=$(sed -n 's/^Secret: *//p' "$MANA_RC")
[ ${#secret} = 64 ] || fail "no secret in the status file"

# The IDE hands ranks the secret in the environment: mana_launch must move it out of there.
MANA_COORD_SECRET=$secret "$B/mana_launch" --ckptdir "$W/ck" "$PROGDIR/counter" 600 50 > "$W/a.out" 2> "$W/a.err" &
pid=$!
i=0
until grep -q 'registered:' "$W/coord.log" 2>/dev/null && [ -s "$W/a.out" ]; do
    sleep 0.05; i=$((i + 1)); [ $i -lt 400 ] || fail "the rank did not register"
done
kill -0 "$pid" 2>/dev/null || fail "the rank died"
tr '\0' '\n' < "/proc/$pid/environ" > "$W/environ"
grep -q "MANA_COORD_SECRET=" "$W/environ" && fail "MANA_COORD_SECRET in the rank's environment"
grep -qF "$secret" "$W/environ" && fail "the secret is in /proc/$pid/environ"
grep -qF "$secret" "/proc/$pid/cmdline" && fail "the secret is on the command line"
for fd in /proc/$pid/fd/*; do   # the secret's descriptor is closed: no open file holds the secret
    [ -f "$fd" ] && grep -qaF "$secret" "$fd" 2>/dev/null && fail "descriptor ${fd##*/} of the program holds the secret"
done
echo "ok: not in /proc/PID/environ, cmdline or an open descriptor"

timeout 60 "$B/mana_status" --checkpoint > "$W/status.out" 2>&1 || fail "checkpoint: $(cat "$W/status.out")"
img=$(ls "$W"/ck/ckpt_rank_0/*.mana 2>/dev/null | head -n 1)
[ -s "$img" ] || fail "no image written"
n=$(grep -caF "$secret" "$img")
[ "$n" = 0 ] || fail "the secret is in the image $n time(s)"
# nor its first half (a partly overwritten copy would still leak most of it)
grep -qaF "${secret:0:32}" "$img" && fail "half of the secret is in the image"
# the program is still covered: the checkpoint went through with a coordinator that checked the rank's proof
grep -q "written" "$W/status.out" || fail "checkpoint not written: $(cat "$W/status.out")"
echo "ok: not in the image ($(stat -c %s "$img") bytes)"

# After a restart (the secret comes anew from mana_restart), the next image holds none either.
kill -9 "$pid"; wait "$pid" 2>/dev/null
MANA_COORD_SECRET=$secret "$B/mana_restart" --restartdir "$W/ck" > "$W/b.out" 2> "$W/b.err" &
pid=$!
i=0
until [ "$(grep -c 'registered:' "$W/coord.log")" -ge 2 ] && [ -s "$W/b.out" ]; do
    sleep 0.05; i=$((i + 1)); [ $i -lt 400 ] || fail "the restarted rank did not register"
done
tr '\0' '\n' < "/proc/$pid/environ" | grep -qF "$secret" && fail "the secret is in the restarted rank's environment"
timeout 60 "$B/mana_status" --checkpoint > "$W/status2.out" 2>&1 || fail "checkpoint after restart: $(cat "$W/status2.out")"
img2=$(ls "$W"/ck/ckpt_rank_0/*.mana | sort | tail -n 1)
[ "$img2" != "$img" ] || fail "no new image after the restart"
n=$(grep -caF "$secret" "$img2")
[ "$n" = 0 ] || fail "the secret is in the image written after the restart $n time(s)"
echo "ok: not in the image written after a restart"
exit 0
