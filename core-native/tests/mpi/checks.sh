# checks.sh - sourced by the MPI test scripts that report a list of checks (errors_mpi.sh, exit_mpi.sh):
# check NAME CONDITION counts failures in $fails; coord starts a coordinator on $tmp/mana.rc (the
# caller exports MANA_RC=$tmp/mana.rc) and waits for its status file, an event, for at most 10 s.
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
coord() {
    rm -f "$tmp/mana.rc"
    "$ROOT/bin/mana_coordinator" --status-file "$tmp/mana.rc" -p 0 >> "$tmp/coord.log" 2>&1 &
    for _ in $(seq 200); do grep -q '^Secret:' "$tmp/mana.rc" 2>/dev/null && return; sleep 0.05; done
    echo "FAIL: coordinator did not start"; exit 1
}
