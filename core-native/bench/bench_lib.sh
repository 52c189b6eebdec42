# bench_lib.sh - what the process benchmarks share (sourced by bench_process.sh and bench_incremental.sh;
# POSIX sh). Needs ROOT. bench_setup PREFIX makes $tmp (mode 0700, under MANA_BENCH_DIR or /var/tmp)
# and the traps that kill whatever job ($running) and coordinators ($coord_pids) are left and remove
# $tmp on any exit.

note() { printf '%s\n' "bench: $*" >&2; }

# the runtime's commands the benchmarks start
require_runtime() {
    for t in mana_coordinator mana_launch mana_restart mana_coord_probe; do
        [ -x "$ROOT/bin/$t" ] || { note "$ROOT/bin/$t missing: make build first"; exit 1; }
    done
}

# kill_tree SIGNAL PID: the process and every descendant, children first
kill_tree() {
    for c in $(ps -o pid= --ppid "$2" 2>/dev/null); do kill_tree "$1" "$c"; done
    kill "-$1" "$2" 2>/dev/null
}

bench_setup() {
    tmp=$(mktemp -d "${MANA_BENCH_DIR:-/var/tmp}/$1.XXXXXX") || exit 1
    chmod 0700 "$tmp"
    running= coord_pids=
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
}
bench_cleanup() {
    [ -n "$running" ] && kill_tree KILL "$running"
    for p in $coord_pids; do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}

now_ns() { date +%s%N; }

# wait_for SECONDS CMD...: CMD every 10 ms until it succeeds (fine-grained: some waits are timed)
wait_for() {
    n=$(($1 * 100))
    shift
    while ! "$@"; do
        n=$((n - 1))
        [ $n -gt 0 ] || return 1
        sleep 0.01
    done
}
has_line() { grep -q -- "$2" "$1" 2>/dev/null; }
status_ready() { grep -q '^Secret:' "$tmp/mana.rc" 2>/dev/null; }
