# wait.sh - the shell harnesses' waits, sourced (needs ROOT, the installed tree). Each waits for an event
# and is bounded: when its time runs out it returns 1, and the caller fails the test with what it waited
# for. No wait guesses a duration.
#
#   wait_for SECONDS CMD...      run CMD every 50 ms until it succeeds
#   await_running N SECONDS      the coordinator of $MANA_RC lists exactly N ranks, all RUNNING
#   start_coord_on RC LOG        a coordinator on status file RC (port 0), up once RC names its secret
#
# await_running asks over one control connection (bin/mana_coord_probe --await-running), not with a
# mana_status --list per look: each of those starts a JVM (~0.7 s of CPU), which on a 2-core CI machine
# slowed the very ranks being waited for and made most of the MPI suite's harness time.

# The 50 ms between looks: a read with a time-out on a pipe nobody writes, in the shell itself (sleep(1)
# was a fork and an exec per look, 20 a second in every wait of every test).
exec {_wait_nap_fd}<> <(:)
wait_for() {
    local n=$(($1 * 20)); shift
    until "$@"; do n=$((n - 1)); [ $n -gt 0 ] || return 1; read -rt 0.05 -u "$_wait_nap_fd" _ || :; done
}

await_running() {
    "$ROOT/bin/mana_coord_probe" --await-running "$1" --timeout "$(($2 * 1000))" > /dev/null
}

# --foreground in the background: one JVM, where the default detaching start runs two; C1 only (a test's
# job has a few ranks: the coordinator is up sooner and takes less CPU from them).
start_coord_on() {
    rm -f "$1"
    MANA_COORDINATOR_JVM_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -XX:-UsePerfData" \
        "$ROOT/bin/mana_coordinator" --foreground --status-file "$1" -p 0 >> "$2" 2>&1 &
    wait_for 30 names_secret "$1"
}
names_secret() { grep -q '^Secret:' "$1" 2>/dev/null; }
