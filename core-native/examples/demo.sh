#!/bin/sh
# demo.sh - checkpoint, kill and restart the example program under the
# runtime, and show that it finishes with the result of an uninterrupted run.
#
#   1. run the example plainly: the reference result;
#   2. start a coordinator (temporary status file, any free port);
#   3. mana_launch the example into a fresh checkpoint directory;
#   4. mana_status --checkpoint in the middle of the run; kill -9 the program;
#   5. start a coordinator again (the first one exits with its last rank, as
#      MANA's does), mana_restart, and compare the final lines.
# Prints PASS or FAIL and exits 0 or 1.  Everything has a timeout; the
# temporary directory and every process started here go away on exit.
#
# Environment: MANA_DEMO_MPIRUN (default "mpirun.openmpi --oversubscribe -n 4": the MPI example,
# heat_mpi.c, a heat stencil with halo exchange and a global reduction, on 4 ranks; e.g.
# "mpirun.mpich -n 4" for MPICH; set but empty: the non-MPI example, heat.c),
# MANA_DEMO_STEPS (60), MANA_DEMO_KEEP=1 keeps the temporary directory.
set -u

ROOT=$(cd "$(dirname -- "$(readlink -f -- "$0")")/../.." && pwd -P)
MPIRUN=${MANA_DEMO_MPIRUN-mpirun.openmpi --oversubscribe -n 4}
STEPS=${MANA_DEMO_STEPS:-60}
DELAY_MS=100
CKPT_AT=$((STEPS / 3))          # checkpoint once this many steps are printed

say() { printf '%s\n' "demo: $*"; }
die() { printf '%s\n' "demo: $*" >&2; say "FAIL"; exit 1; }

# The example, built by CMake; compiled here if the build has not made it.
# Under an MPI launcher it is the MPI version (same output, same result).
if [ -n "$MPIRUN" ]; then
    name=heat_mpi cc=mpicc
    case $MPIRUN in *mpich*) cc=mpicc.mpich;; *openmpi*) cc=mpicc.openmpi;; esac
else name=heat cc=cc; fi
EXAMPLE=$ROOT/core-native/build/examples/$name
tmp=$(mktemp -d /tmp/mana_demo.XXXXXX) || die "cannot create a temporary directory"
# The build's heat_mpi is an Open MPI program: build one for MPICH here.
if [ ! -x "$EXAMPLE" ] || [ "$cc" = mpicc.mpich ]; then
    $cc -O2 -o "$tmp/$name" "$ROOT/core-native/examples/$name.c" || die "cannot build the example"
    EXAMPLE=$tmp/$name
fi
# Open MPI refuses to run as root without these (harmless otherwise).
if [ -n "$MPIRUN" ] && [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
for t in mana_coordinator mana_launch mana_restart mana_status; do
    [ -x "$ROOT/bin/$t" ] || die "$ROOT/bin/$t missing: run make build first"
done

# kill_tree SIG PID: PID's descendants, then PID (under mpirun the ranks are
# mpirun's children, and a SIGKILL to mpirun would not reach them).
kill_tree() {
    for c in $(ps -o pid= --ppid "$2" 2>/dev/null); do kill_tree "$1" "$c"; done
    kill "-$1" "$2" 2>/dev/null
}

launched= coord_pids=
cleanup() {
    [ -n "$launched" ] && kill_tree KILL "$launched"
    for p in $coord_pids; do kill "$p" 2>/dev/null; done
    if [ -r "$tmp/mana.rc" ]; then
        p=$(sed -n 's/^Pid: *//p' "$tmp/mana.rc")
        [ -n "$p" ] && kill "$p" 2>/dev/null
    fi
    if [ -n "${MANA_DEMO_KEEP:-}" ]; then say "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for SECONDS COMMAND...: poll every 0.1 s until COMMAND succeeds.
wait_for() {
    n=$(($1 * 10))
    shift
    while ! "$@"; do
        n=$((n - 1))
        [ $n -gt 0 ] || return 1
        sleep 0.1
    done
}
has_line() { grep -q -- "$2" "$1" 2>/dev/null; }
status_ready() { grep -q '^Secret:' "$tmp/mana.rc" 2>/dev/null; }

start_coordinator() {
    rm -f "$tmp/mana.rc"
    HOME=$tmp "$ROOT/bin/mana_coordinator" --status-file "$tmp/mana.rc" -p 0 \
        >> "$tmp/coordinator.log" 2>&1 &
    coord_pids="$coord_pids $!"
    wait_for 30 status_ready || { cat "$tmp/coordinator.log" >&2; die "the coordinator did not start"; }
    say "coordinator on port $(sed -n 's/^Port: *//p' "$tmp/mana.rc")"
}
export MANA_RC="$tmp/mana.rc"
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET DMTCP_COORD_HOST DMTCP_COORD_PORT

# 1. The reference: an uninterrupted run without the runtime.
say "uninterrupted run of ${MPIRUN:+$MPIRUN }$(basename "$EXAMPLE") $STEPS steps (no runtime) ..."
timeout 120 $MPIRUN "$EXAMPLE" "$STEPS" 0 > "$tmp/plain.out" 2>&1 || die "the plain run failed"
want=$(tail -n 1 "$tmp/plain.out")

# 2-3. Launch under the runtime.
start_coordinator
mkdir -m 0700 "$tmp/ckpt"
say "launch: ${MPIRUN:+$MPIRUN }bin/mana_launch --ckptdir \$TMP/ckpt $name $STEPS $DELAY_MS"
# No `timeout` in front: kill -9 must hit the program itself (the waits
# below are bounded, and the trap kills it on any way out).
$MPIRUN "$ROOT/bin/mana_launch" --ckptdir "$tmp/ckpt" "$EXAMPLE" "$STEPS" "$DELAY_MS" \
    > "$tmp/launch.out" 2> "$tmp/launch.err" &
launched=$!
step=$(printf 'step %3d/' "$CKPT_AT")
wait_for 60 has_line "$tmp/launch.out" "$step" ||
    { cat "$tmp/launch.out" "$tmp/launch.err" >&2; die "the launched program did not reach step $CKPT_AT"; }

# 4. Checkpoint in the middle, then kill -9.
say "checkpoint at step $CKPT_AT: bin/mana_status --checkpoint"
"$ROOT/bin/mana_status" --checkpoint > "$tmp/status.out" 2>&1 ||
    { cat "$tmp/status.out" >&2; die "mana_status --checkpoint failed"; }
image_ready() { ls "$tmp"/ckpt/ckpt_rank_0/*.mana >/dev/null 2>&1; }
wait_for 60 image_ready || { cat "$tmp/status.out" "$tmp/launch.err" >&2; die "no image in ckpt_rank_0/"; }
sleep 0.3
kill_tree KILL "$launched"
wait "$launched" 2>/dev/null
launched=
last=$(grep -c '^heat step' "$tmp/launch.out")
say "killed (kill -9) after $last steps; image: $(ls "$tmp"/ckpt/ckpt_rank_0/) ($(du -k "$tmp"/ckpt/ckpt_rank_0/*.mana | cut -f1 | head -n 1) KiB)"
ls "$tmp"/ckpt/ckpt_rank_*/*.tmp >/dev/null 2>&1 && die "a *.tmp image was left behind"

# 5. Restart from the image.
start_coordinator
say "restart: ${MPIRUN:+$MPIRUN }bin/mana_restart --restartdir \$TMP/ckpt"
timeout 300 $MPIRUN "$ROOT/bin/mana_restart" --restartdir "$tmp/ckpt" \
    > "$tmp/restart.out" 2> "$tmp/restart.err"
rc=$?
got=$(tail -n 1 "$tmp/restart.out")
first=$(grep -m 1 '^heat step' "$tmp/restart.out")

echo
echo "---- launch (killed) ----"; tail -n 3 "$tmp/launch.out"
echo "---- restart ----";         head -n 2 "$tmp/restart.out"; echo "..."; tail -n 2 "$tmp/restart.out"
echo "----"
say "uninterrupted: $want"
say "restarted:     $got"
[ $rc = 0 ] || { cat "$tmp/restart.err" >&2; die "mana_restart exited with status $rc"; }
[ -n "$first" ] || die "the restarted program printed no step"
[ "$got" = "$want" ] || die "results differ"
say "resumed at: $first"
say "PASS"
