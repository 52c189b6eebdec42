#!/bin/bash
# launch_ranks.sh ROOT PROGDIR - ranks of a launcher, through the installed runtime and a real coordinator,
# with a program without MPI (tests/programs/counter) and the variables srun gives each rank:
#
#   1. a launcher that names no MPI (srun), 2 ranks, no --mpi: every rank refuses with one line giving
#      the flags, and none registers;
#   2. the same with --mpi none: ranks 0 and 1 of one job of 2 (the lower half takes the size from the
#      launcher), checkpointed ("written: 2 ranks"), killed and restarted under the same launcher;
#   3. a launcher the scripts do not know (no variable at all): both processes are rank 0 of 1, the
#      coordinator refuses the second, and then refuses to checkpoint the job, naming it, where it
#      used to report "checkpoint 1 written: 1 ranks"; mana_status --list and --json show the refusal.
# Exit 0 = pass, 1 = fail, 77 = skipped (runtime or coordinator not installed).
set -u
ROOT=$1 PROGDIR=$2
B=$ROOT/bin
for t in mana_coordinator mana_status mana_launch mana_restart lower-half; do
    [ -x "$B/$t" ] || { echo "FAIL: $B/$t not installed (make build)"; exit 1; }
done
[ -x "$PROGDIR/counter" ] || { echo "FAIL: $PROGDIR/counter not built"; exit 1; }

W=$(mktemp -d /tmp/mana-ranks.XXXXXX) || exit 1
export MANA_RC=$W/coord.rc TEST_HOLD_FILE=$W/hold
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET DMTCP_COORD_HOST DMTCP_COORD_PORT MANA_CKPT_DIR MANA_MPI \
      MANA_JOB MANA_DEBUG MANA_QUIET MANA_NO_COORD OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE \
      PMIX_RANK SLURM_PROCID SLURM_STEP_NUM_TASKS SLURM_NTASKS SLURM_JOB_ID HYDI_CONTROL_FD MPI_LOCALNRANKS
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    [ -r "$MANA_RC" ] && timeout 10 "$B/mana_status" --quit >/dev/null 2>&1
    if [ "${KEEP:-}" ]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    for f in "$W"/*.out "$W"/*.err "$W/coord.log"; do [ -s "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done
    exit 1
}
ok() { echo "ok: $*"; }

start_coordinator() {
    rm -f "$MANA_RC"
    : > "$W/coord.log"
    "$B/mana_coordinator" --verbose -p 0 --no-exit-on-last --status-file "$MANA_RC" --log-file "$W/coord.log" \
        > /dev/null 2>&1 || fail "coordinator did not start"
}
stop_coordinator() { timeout 10 "$B/mana_status" --quit > /dev/null 2>&1; rm -f "$MANA_RC"; }
# as srun starts rank R of N: the variables it gives each task (no --mpi plugin)
as_srun() { local r=$1 n=$2; shift 2; env SLURM_PROCID="$r" SLURM_STEP_NUM_TASKS="$n" SLURM_NTASKS="$n" "$@"; }
# rank NAME CMD...: in the background, output in $W/NAME.out/.err
rank() {
    local name=$1; shift
    "$@" > "$W/$name.out" 2> "$W/$name.err" &
    PIDS+=("$!")
}
wait_registered() {   # until the coordinator's log has N registrations in all
    local i=0
    until [ "$(grep -c 'registered:' "$W/coord.log" 2>/dev/null)" -ge "$1" ]; do
        sleep 0.05; i=$((i + 1)); [ $i -lt 600 ] || fail "$1 registrations did not come"
    done
}
wait_line() {   # wait_line FILE PATTERN
    local i=0
    until grep -q -- "$2" "$1" 2>/dev/null; do
        sleep 0.05; i=$((i + 1)); [ $i -lt 600 ] || fail "no line '$2' in $1"
    done
}
wait_exit() {   # wait_exit PID: its status in RC, within 60 s
    local i=0
    while kill -0 "$1" 2>/dev/null && [ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v Z)" ]; do
        sleep 0.05; i=$((i + 1)); [ $i -lt 1200 ] || fail "process $1 still running after 60 s"
    done
    wait "$1"; RC=$?
}
final_line() { grep -a 'done' "$1" | tail -n 1; }

# ---- 1. srun of 2 ranks, no --mpi: refused, with the flags, before anything registers
start_coordinator
for r in 0 1; do
    (cd "$W" && TEST_HOLD_FILE= timeout 60 env SLURM_PROCID=$r SLURM_STEP_NUM_TASKS=2 \
        "$B/mana_launch" --ckptdir "$W/ck1" "$PROGDIR/counter" 5 10) > "$W/refused$r.out" 2> "$W/refused$r.err"
    st=$?
    [ "$st" = 1 ] || fail "rank $r under srun without --mpi: status $st, want 1"
    [ "$(wc -l < "$W/refused$r.err")" = 1 ] || fail "rank $r: $(wc -l < "$W/refused$r.err") lines on stderr, want 1"
    grep -q "^mana_launch: counter links no MPI library, and srun (SLURM_PROCID, SLURM_STEP_NUM_TASKS) does not say which MPI its 2 ranks run: pass --mpi openmpi or --mpi mpich (the MPI the program loads), or --mpi none (2 processes without MPI)$" \
        "$W/refused$r.err" || fail "rank $r: no refusal with the flags: $(cat "$W/refused$r.err")"
done
[ ! -s "$W/refused0.out" ] && [ ! -s "$W/refused1.out" ] || fail "a refused rank ran the program"
! grep -q 'registered:' "$W/coord.log" || fail "a refused rank registered"
ok "srun of 2 without --mpi: each rank refuses with one line naming --mpi openmpi, --mpi mpich, --mpi none"

# ---- 2. --mpi none under srun of 2: ranks 0 and 1 of one job of 2, checkpointed, killed, restarted
want=$(TEST_HOLD_FILE= "$PROGDIR/counter" 40 0 | final_line /dev/stdin)
for r in 0 1; do
    rank none$r as_srun $r 2 "$B/mana_launch" --mpi none --ckptdir "$W/ck" "$PROGDIR/counter" 40 40
done
wait_registered 2
"$B/mana_status" --list > "$W/list.out" 2>&1 || fail "mana_status --list failed"
[ "$(grep -c ' RUNNING ' "$W/list.out")" = 2 ] || fail "not 2 ranks RUNNING: $(cat "$W/list.out")"
! grep -q "Refused" "$W/list.out" || fail "a rank was refused: $(cat "$W/list.out")"
wait_line "$W/none0.out" "count 3"
wait_line "$W/none1.out" "count 3"
timeout 60 "$B/mana_status" --checkpoint > "$W/ckpt.out" 2>&1 || fail "checkpoint of the two ranks failed: $(cat "$W/ckpt.out")"
grep -q "^checkpoint 1 written: 2 ranks" "$W/ckpt.out" || fail "not a checkpoint of 2 ranks: $(cat "$W/ckpt.out")"
for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
PIDS=()
stop_coordinator
start_coordinator
for r in 0 1; do
    rank back$r as_srun $r 2 "$B/mana_restart" --restartdir "$W/ck"
done
back0=${PIDS[0]} back1=${PIDS[1]}
# registered before the program may end (it waits for the hold file before its last line)
wait_line "$W/coord.log" "rank 0 of 'default' registered: .*(restarting from generation 1)"
wait_line "$W/coord.log" "rank 1 of 'default' registered: .*(restarting from generation 1)"
grep -q "job 'default' started: 2 ranks" "$W/coord.log" || fail "the restarted ranks are not one job of 2: $(cat "$W/coord.log")"
touch "$W/hold"
wait_exit "$back0"; [ "$RC" = 0 ] || fail "restarted rank 0 exited with $RC"
wait_exit "$back1"; [ "$RC" = 0 ] || fail "restarted rank 1 exited with $RC"
PIDS=()
for r in 0 1; do
    [ "$(final_line "$W/back$r.out")" = "$want" ] || fail "restarted rank $r ended '$(final_line "$W/back$r.out")', want '$want'"
done
ok "--mpi none under srun of 2: ranks 0 and 1 of one job, checkpoint of 2 ranks, both restarted and finished"
rm -f "$W/hold"
stop_coordinator

# ---- 3. a launcher the scripts do not know: two processes that are each rank 0 of 1
start_coordinator
rank dup0 "$B/mana_launch" --ckptdir "$W/ck3a" "$PROGDIR/counter" 40 40
wait_registered 1
rank dup1 "$B/mana_launch" --ckptdir "$W/ck3b" "$PROGDIR/counter" 40 40
dup1=${PIDS[1]}
wait_line "$W/dup1.err" "already registered"
wait_line "$W/dup1.out" "count 1"      # it runs on, without checkpoints
out=$(timeout 60 "$B/mana_status" --checkpoint 2>&1)
st=$?
[ "$st" = 1 ] || fail "checkpoint of a job with a refused rank: status $st, want 1: $out"
case $out in *written*) fail "a checkpoint was reported written: $out";; esac
echo "$out" | grep -q "^mana_status: checkpoint failed: job 'default' has a rank the coordinator refused at registration: rank 0 (pid $dup1 on [^)]*): rank 0 of job 'default' is already registered (pid ${PIDS[0]} on " ||
    fail "the failure does not name the refused rank and why: $out"
[ -z "$(ls -A "$W/ck3a" 2>/dev/null)" ] && [ -z "$(ls -A "$W/ck3b" 2>/dev/null)" ] || fail "an image was written: $(ls -R "$W"/ck3*)"
"$B/mana_status" --list > "$W/list3.out" 2>&1 || fail "mana_status --list failed"
grep -q "^Refused at registration" "$W/list3.out" && grep -q "^  rank 0 (pid $dup1 on .*already registered" "$W/list3.out" ||
    fail "--list does not show the refused rank: $(cat "$W/list3.out")"
"$B/mana_status" --list --json > "$W/list3.json" 2>&1 || fail "mana_status --list --json failed"
python3 - "$W/list3.json" "$dup1" <<'PY' || fail "--json does not list the refused rank: $(cat "$W/list3.json")"
import json, sys
m = json.load(open(sys.argv[1]))
r = m["refused"]
assert len(r) == 1 and r[0]["rank"] == 0 and r[0]["nranks"] == 1 and r[0]["pid"] == int(sys.argv[2]), r
assert "already registered" in r[0]["reason"], r
PY
ok "a rank refused as a duplicate: no checkpoint written, the failure names it, --list and --json show it"
# the job's run ends with its registered rank: the next run checkpoints
for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
PIDS=()
i=0
until "$B/mana_status" --status 2>/dev/null | grep -q "0 connected of 1"; do
    sleep 0.05; i=$((i + 1)); [ $i -lt 400 ] || fail "the killed rank is still connected"
done
rank next "$B/mana_launch" --ckptdir "$W/ck3c" "$PROGDIR/counter" 40 40
wait_registered 2
wait_line "$W/next.out" "count 1"
timeout 60 "$B/mana_status" --checkpoint > "$W/ckpt3.out" 2>&1 || fail "the next run's checkpoint failed: $(cat "$W/ckpt3.out")"
grep -q "written: 1 ranks" "$W/ckpt3.out" || fail "the next run: $(cat "$W/ckpt3.out")"
ok "the refusal ended with the run: the next run of the job checkpoints"
echo "launch_ranks: all ok"
