#!/usr/bin/env bash
# run_apps.sh [NAME...] - third-party MPI programs from Debian's packages, each run natively and under
# the runtime: launched with a real coordinator, checkpointed and killed at an event mid-run (the N-th
# line matching APP_EVENT), restarted from the images, and its result compared with the native run's.
#
# Each program is one definition in progs/NAME.sh (sourced in a subshell):
#   APP_PACKAGES   the Debian packages it needs (make test-apps installs them as root)
#   APP_MPI        openmpi | mpich          APP_NP   ranks (default 2)
#   APP_PROG       the program (a name in PATH or an absolute path); missing: the row is skipped
#   APP_ARGS       its arguments (an array)
#   APP_EVENT      extended regex of a line the program prints mid-run; APP_EVENT_COUNT: the N-th one
#   APP_EVENT_IN   out | err | a file name in the run folder (default out)
#   APP_DONE       extended regex of a line that only the end of the run prints (in APP_EVENT_IN): the
#                  checkpoint must have come before it
#   APP_TIMEOUT    seconds for one run (default 240)
#   APP_EXPECT     pass | known-failure; APP_REASON: the reason, APP_REASON_RE: an extended regex that the
#                  failing run's output, or the difference of its result from the native one (result.diff),
#                  must match (another failure is unexpected)
#   app_build      optional: build our own program from src/ into $APPS_BUILD (once)
#   app_setup      write the input files into the run folder (the current directory)
#   app_result     print the run's deterministic result (reads out.txt, err.txt, files in the run folder)
# out.txt/err.txt of a restarted run are the launch's output followed by the restart's.
#
# Prints a table (program, MPI, native, under runtime, checkpoint/restart, result), then
# "N passed, N failed, N known failures, N skipped". Exit 0 when nothing failed unexpectedly.
# A known failure that now passes is a failure too (remove its mark). Every wait is bounded.
# MANA_APPS_KEEP=1 keeps the work folder; MANA_ROOT chooses the runtime (default: this repository).
set -u
HERE=$(cd "$(dirname -- "$(readlink -f -- "$0")")" && pwd -P)
ROOT=${MANA_ROOT:-$(cd "$HERE/../../.." && pwd -P)}
[ -x "$ROOT/bin/mana_launch" ] && [ -x "$ROOT/bin/mana_status" ] ||
    { echo "run_apps.sh: no runtime in $ROOT/bin (make build)" >&2; exit 2; }
W=$(mktemp -d /tmp/mana_apps.XXXXXX) || exit 1
export APPS_BUILD=$W/build APPS_SRC=$HERE/src
mkdir -p "$APPS_BUILD"
export HOME=$W MANA_RC=$W/mana.rc
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_CKPT_DIR MANA_DEBUG MANA_NO_COORD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_odls_base_sigkill_timeout=0    # checkpoint-and-kill: the job ends at once (see tests/mpi/cr_mpi.sh)
job_pid=
cleanup() {
    [ -n "$job_pid" ] && { pkill -KILL -P "$job_pid" 2>/dev/null; kill -KILL "$job_pid" 2>/dev/null; }
    pkill -f "status-file $W/" 2>/dev/null
    [ -n "${MANA_APPS_KEEP:-}" ] && echo "work folder kept: $W" || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for SECONDS CMD...: poll an event, give up after SECONDS.
wait_for() {
    local n=$(($1 * 10)); shift
    until "$@"; do n=$((n - 1)); [ $n -gt 0 ] || return 1; sleep 0.1; done
}
coord_up() { grep -q '^Secret:' "$MANA_RC" 2>/dev/null; }
start_coordinator() {
    pkill -f "status-file $W/" 2>/dev/null
    rm -f "$MANA_RC"
    "$ROOT/bin/mana_coordinator" --status-file "$MANA_RC" -p 0 >> "$W/coordinator.log" 2>&1 &
    wait_for 30 coord_up
}

names=("$@")
if [ ${#names[@]} = 0 ]; then
    for f in "$HERE"/progs/*.sh; do names+=("$(basename "$f" .sh)"); done
fi

rows=() passed=0 failed=0 known=0 skipped=0
# One program, in a subshell: prints one line "STATUS|native|runtime|ckpt|result|note".
run_one() (
    local name=$1 def=$HERE/progs/$1.sh
    trap '[ -n "$job_pid" ] && { pkill -KILL -P "$job_pid"; kill -KILL "$job_pid"; } 2>/dev/null' EXIT
    [ -f "$def" ] || { echo "FAIL|-|-|-|-|no definition $def"; return; }
    APP_NP=2 APP_EVENT_COUNT=1 APP_EVENT_IN=out APP_DONE= APP_TIMEOUT=240 APP_EXPECT=pass APP_REASON= APP_REASON_RE=
    APP_ARGS=()
    app_build() { :; }
    # shellcheck disable=SC1090
    . "$def"
    local prog=$APP_PROG
    case $APP_MPI in
        openmpi) MPIRUN=(mpirun.openmpi --oversubscribe -n "$APP_NP");;
        mpich) MPIRUN=(mpirun.mpich -n "$APP_NP");;
    esac
    command -v "${MPIRUN[0]}" >/dev/null || { echo "SKIP|-|-|-|-|${MPIRUN[0]} not installed"; return; }
    (cd "$APPS_BUILD" && app_build) > "$W/$name.build.log" 2>&1 || { echo "FAIL|-|-|-|-|build failed: $(tail -n 3 "$W/$name.build.log" | tr '\n|' '  ')"; return; }
    command -v "$prog" >/dev/null || { echo "SKIP|-|-|-|-|$prog not installed (apt-get install $APP_PACKAGES)"; return; }
    local d=$W/$name
    mkdir -p "$d/native" "$d/cr"
    # native
    (cd "$d/native" && app_setup && exec timeout "$APP_TIMEOUT" "${MPIRUN[@]}" "$prog" "${APP_ARGS[@]}" > out.txt 2> err.txt < /dev/null)
    local rc=$? native=ok
    [ $rc = 0 ] || native="exit $rc"
    local want
    want=$(cd "$d/native" && app_result 2>/dev/null)
    [ -n "$want" ] || native="$native, no result"
    # under the runtime
    local runtime=- ckpt=- result=- note=
    evfile() { case $APP_EVENT_IN in out) echo "$d/cr/launch.out";; err) echo "$d/cr/launch.err";; *) echo "$d/cr/$APP_EVENT_IN";; esac; }
    reached() { [ "$(grep -E -c -- "$APP_EVENT" "$(evfile)" 2>/dev/null)" -ge "$APP_EVENT_COUNT" ]; }
    alive() { kill -0 "$job_pid" 2>/dev/null; }
    reached_or_ended() { reached || ! alive; }
    # one look over the coordinator's LIST (no JVM per look): all APP_NP ranks RUNNING
    all_running() { "$ROOT/bin/mana_coord_probe" --await-running "$APP_NP" --timeout 0 > /dev/null 2>&1 || ! alive; }
    why() {  # the runtime's own explanation, if it gave one
        cat "$d"/cr/launch.out "$d"/cr/launch.err "$d"/cr/restart.out "$d"/cr/restart.err 2>/dev/null |
            grep -a -m 1 -E 'MANA: |lower-half: |mana_launch: |mana_restart: |Segmentation|signal' | tr '|' '/' | cut -c1-200
    }
    finish() {  # STATUS from what happened: pass, or a failure that is or is not the known one
        local ok=$1
        if [ "$ok" = yes ]; then
            if [ "$APP_EXPECT" = known-failure ]; then
                echo "FAIL|$native|$runtime|$ckpt|$result|passes now: remove its known-failure mark ($APP_REASON)"
            else echo "PASS|$native|$runtime|$ckpt|$result|"; fi
        elif [ "$APP_EXPECT" = known-failure ] && [ "$native" = ok ] && [ -n "$APP_REASON_RE" ] &&
             cat "$d"/cr/*.out "$d"/cr/*.err "$d"/result.diff 2>/dev/null | grep -a -q -E -- "$APP_REASON_RE"; then
            echo "KNOWN|$native|$runtime|$ckpt|$result|$APP_REASON"
        else
            echo "FAIL|$native|$runtime|$ckpt|$result|${note:-$(why)}"
        fi
    }
    start_coordinator || { note="coordinator did not start"; finish no; return; }
    (cd "$d/cr" && app_setup && ulimit -c 0 &&
     exec timeout "$APP_TIMEOUT" "${MPIRUN[@]}" "$ROOT/bin/mana_launch" --ckptdir "$d/cr/ck" "$prog" "${APP_ARGS[@]}" \
         > launch.out 2> launch.err < /dev/null) &
    job_pid=$!
    if ! wait_for 60 all_running || ! alive; then
        alive && { pkill -KILL -P "$job_pid"; kill -KILL "$job_pid"; }
        wait "$job_pid"; rc=$?; job_pid=
        runtime="ended before registering (exit $rc)"; finish no; return
    fi
    if ! wait_for "$APP_TIMEOUT" reached_or_ended || ! reached; then
        alive && { pkill -KILL -P "$job_pid"; kill -KILL "$job_pid"; }
        wait "$job_pid"; rc=$?; job_pid=
        runtime="no event (exit $rc)"; finish no; return
    fi
    runtime=ok
    if ! timeout 120 "$ROOT/bin/mana_status" --checkpoint-and-kill > "$d/status.out" 2>&1 ||
       ! grep -q written "$d/status.out"; then
        ckpt="checkpoint failed"
        note="$(tail -n 1 "$d/status.out" | tr '|' '/'); $(why)"
        if ! alive && [ -n "$APP_DONE" ] && grep -E -q -- "$APP_DONE" "$(evfile)"; then
            ckpt="not mid-run"; note="the program ended before the checkpoint: choose an earlier event or a larger input"
        fi
        pkill -KILL -P "$job_pid"; kill -KILL "$job_pid"; wait "$job_pid"; job_pid=
        finish no; return
    fi
    wait "$job_pid"; job_pid=
    if [ -n "$APP_DONE" ] && grep -E -q -- "$APP_DONE" "$(evfile)"; then
        ckpt="not mid-run"; note="the program ended before the checkpoint: choose a later event or a larger input"
        finish no; return
    fi
    local size
    size=$(du -sm "$d/cr/ck" | cut -f1)
    start_coordinator || { ckpt="coordinator did not start"; finish no; return; }
    (cd "$d/cr" && exec timeout "$APP_TIMEOUT" "${MPIRUN[@]}" "$ROOT/bin/mana_restart" --restartdir "$d/cr/ck" \
         > restart.out 2> restart.err < /dev/null) &
    job_pid=$!
    wait "$job_pid"; rc=$?; job_pid=
    if [ $rc != 0 ]; then ckpt="restart: exit $rc"; finish no; return; fi
    ckpt="ok (${size} MB)"
    cat "$d/cr/launch.out" "$d/cr/restart.out" > "$d/cr/out.txt"
    cat "$d/cr/launch.err" "$d/cr/restart.err" > "$d/cr/err.txt"
    local got
    got=$(cd "$d/cr" && app_result 2>/dev/null)
    if [ -z "$got" ]; then result="no result"; finish no
    elif [ "$got" = "$want" ] && [ "$native" = ok ]; then
        result="same ($(echo "$got" | wc -l) lines, $(echo "$got" | sha256sum | cut -c1-8))"; finish yes
    else
        result="differs"; note="native: $(echo "$want" | tail -n 1 | cut -c1-80) / restarted: $(echo "$got" | tail -n 1 | cut -c1-80)"
        diff <(echo "$want") <(echo "$got") > "$d/result.diff"; finish no
    fi
)

for name in "${names[@]}"; do
    def=$HERE/progs/$name.sh
    mpi=$( (. "$def" 2>/dev/null; echo "${APP_MPI:-?}") )
    t0=$(date +%s)
    line=$(run_one "$name" | tail -n 1)
    IFS='|' read -r st native runtime ckpt result note <<< "$line"
    secs=$(( $(date +%s) - t0 ))
    case $st in
        PASS) passed=$((passed + 1)); verdict=pass;;
        KNOWN) known=$((known + 1)); verdict="known failure: $note";;
        SKIP) skipped=$((skipped + 1)); verdict="skipped: $note";;
        *) failed=$((failed + 1)); verdict="FAIL: $note";;
    esac
    row="| $name | $mpi | $native | $runtime | $ckpt | $result | $verdict | ${secs} s |"
    rows+=("$row")
    echo "$row" >&2
done
echo "| program | MPI | native | under runtime | checkpoint/restart | result | verdict | time |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo "$passed passed, $failed failed, $known known failures, $skipped skipped"
[ $failed = 0 ]
