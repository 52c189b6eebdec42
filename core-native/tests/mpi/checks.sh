# checks.sh - sourced by the MPI test scripts that report a list of checks (errors_mpi.sh, exit_mpi.sh):
# check NAME CONDITION counts failures in $fails; coord starts a coordinator on $tmp/mana.rc (the
# caller exports MANA_RC=$tmp/mana.rc) and waits for its status file, an event, for at most 30 s; ready
# waits for a launched job (tests/lib/wait.sh holds the waits).
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib/wait.sh"     # wait_for, await_running, start_coord_on
coord() {
    start_coord_on "$tmp/mana.rc" "$tmp/coord.log" || { echo "FAIL: coordinator did not start"; exit 1; }
}
# ready NP: the launched job's rank 0 printed "ready" in $tmp/l.out and NP ranks are RUNNING, or the
# script fails: every later check would only repeat that the job never started.
ready() {
    wait_for 60 grep -q '^ready' "$tmp/l.out" || { echo "FAIL: no 'ready' line"; tail "$tmp/l.out"; exit 1; }
    await_running "$1" 60 || { echo "FAIL: not every rank registered"; exit 1; }
}
