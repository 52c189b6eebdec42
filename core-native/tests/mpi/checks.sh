# checks.sh - sourced by the MPI test scripts that report a list of checks (errors_mpi.sh, exit_mpi.sh):
# check NAME CONDITION counts failures in $fails; coord starts a coordinator on $tmp/mana.rc (the
# caller exports MANA_RC=$tmp/mana.rc) and waits for its status file, an event, for at most 30 s; ready
# waits for a launched job (launch_job launches $prog and waits so); lines_match counts a log's lines;
# checkpoint_kill GEN asks one; restart_to_end and finish close the C/R scripts (tests/lib/wait.sh holds
# the waits).
fails=0
# mpi_script_setup MPI NP NAME: what the scripts of one MPI job share: run() = that MPI's launcher for NP
# ranks (120 s), Open MPI's settings for root and for ranks that exit without MPI_Finalize, $tmp (a fresh
# /tmp/mana_NAME.*, removed at exit unless MANA_TEST_KEEP) as HOME with the coordinator's status file, and
# no coordinator or MPI named by the caller's environment.  Exits 2 for an unknown MPI.
mpi_script_setup() {
    case $1 in
        openmpi) export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
                 export OMPI_MCA_odls_base_sigkill_timeout=0
                 eval "run() { timeout 120 mpirun.openmpi --oversubscribe -n $2 \"\$@\"; }";;
        mpich)   eval "run() { timeout 120 mpirun.mpich -n $2 \"\$@\"; }";;
        *)       echo "usage: $0 openmpi|mpich PROG" >&2; exit 2;;
    esac
    tmp=$(mktemp -d "/tmp/mana_$3.XXXXXX") || exit 1
    export HOME=$tmp MANA_RC=$tmp/mana.rc
    unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_MPI MT_PREINIT_HOLD_FILE
    trap 'pkill -f "status-file $tmp/" 2>/dev/null; [ -n "${MANA_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
}
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib/wait.sh"     # wait_for, await_running, start_coord_on
coord() {
    start_coord_on "$tmp/mana.rc" "$tmp/coord.log" || { echo "FAIL: coordinator did not start"; exit 1; }
}
# ready NP: the launched job's rank 0 printed "ready" in $tmp/l.out and NP ranks are RUNNING, or the
# script fails: every later check would only repeat that the job never started.  A job ($job) that has
# already ended fails it at once (it waited its whole 60 s for a program that could not start).
ready() {
    wait_for 60 ready_or_gone
    grep -q '^ready' "$tmp/l.out" ||
        { echo "FAIL: no 'ready' line$(job_gone && echo ': the job ended')"; tail "$tmp/l.out"; exit 1; }
    await_running "$1" 60 || { echo "FAIL: not every rank registered"; exit 1; }
}
job_gone() { [ -n "${job:-}" ] && ! kill -0 "$job" 2>/dev/null; }
ready_or_gone() { grep -q '^ready' "$tmp/l.out" || job_gone; }
# launch_job NP: $prog under mana_launch (run(), in the background: $job), told to stop by $tmp/stop, its
# images in $tmp/ck, its output in $tmp/l.out and l.err; returns once ready NP
launch_job() {
    run "$ROOT/bin/mana_launch" --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" > "$tmp/l.out" 2> "$tmp/l.err" &
    job=$!
    ready "$1"
}
# lines_match N PATTERN FILE: FILE has exactly N lines matching PATTERN (grep's basic expressions)
lines_match() { [ "$(grep -c -- "$2" "$3")" = "$1" ]; }
# checkpoint_kill GEN: checkpoint-and-kill through mana_coord_probe (C, no JVM), which must write
# generation GEN (its answer in $tmp/pGEN.out)
checkpoint_kill() {
    local gen=$1
    timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint --exit --timeout 90000 > "$tmp/p$gen.out" 2>&1
    check "checkpoint-and-kill $gen written" 'grep -q "^checkpoint ok generation=$gen" "$tmp/p$gen.out"'
}
# restart_to_end EXTRA [ARGS...]: a new coordinator; $tmp/ck restarted (mana_restart under run()), told to
# stop EXTRA iterations on ($tmp/stop); it must end well, with the "done:" line of a native run of $prog
# for the same count (ARGS after --iters K).  The line is left in $got.  A script that defines
# while_restarting has it called while the restart runs (in the background then).
restart_to_end() {
    local extra=$1 rc k want job; shift
    coord
    echo "$extra" > "$tmp/stop"
    run "$ROOT/bin/mana_restart" --restartdir "$tmp/ck" > "$tmp/r.out" 2> "$tmp/r.err" &
    job=$!
    if declare -F while_restarting > /dev/null; then while_restarting; fi
    wait $job
    rc=$?
    got=$(grep "done:" "$tmp/r.out")
    check "restart finished ($rc)" '[ $rc -eq 0 ] && [ -n "$got" ]'
    k=$(printf '%s\n' "$got" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
    want=$([ -n "$k" ] && run "$prog" --iters "$k" "$@" 2>&1 | grep "done:")
    check "the native result ($got)" '[ -n "$got" ] && [ "$got" = "$want" ]'
}
# finish FILE...: PASS, or the failures' evidence (the last lines of each FILE there is) and exit 1
finish() {
    if [ "$fails" -ne 0 ]; then
        local f
        for f in "$@"; do [ -s "$f" ] && { echo "---- $f"; tail -n 15 "$f"; }; done
        exit 1
    fi
    echo PASS
}
