#!/usr/bin/env bash
# ctest_bg.sh - core-native's ctest, in the foreground or beside the rest of the build.
#
#   ctest_bg.sh run BUILD PARALLEL     ctest now, its output here; exits with its status (mvn's default)
#   ctest_bg.sh start BUILD PARALLEL   ctest detached from the caller, output to BUILD/ctest-bg/log; returns at once
#   ctest_bg.sh wait BUILD             waits for the run `start` began, prints its output, exits with its status
#                                      (3: no run was started since BUILD/ctest-bg was removed)
#
# Why: ctest's MPI cases run one at a time (RESOURCE_LOCK mpi_cpus, tests/mpi/CMakeLists.txt), so for the
# last ten minutes of a `make test` ctest kept one core busy and Maven waited for it before the Java modules'
# tests, which run one JVM at a time.  `make test` starts ctest here once core-native is installed and lets
# the reactor go on (the Java modules need only the installed runtime), then waits for it at the end
# (Makefile).  Every case keeps its own time-out (300 s); the whole run gets WAIT_LIMIT seconds.
set -u
WAIT_LIMIT=${CTEST_BG_WAIT_LIMIT:-5400}
cmd=${1:-} build=${2:-}
[ -n "$cmd" ] && [ -n "$build" ] || { echo "usage: ctest_bg.sh run|start BUILD PARALLEL | wait BUILD" >&2; exit 2; }
state=$build/ctest-bg
# CTEST_BG_EXTRA: more ctest arguments (a selection, e.g. "-L unit", to try this script on)
ctest_args() { echo --test-dir "$build" --output-on-failure --parallel "$1" --timeout 300 ${CTEST_BG_EXTRA:-}; }
case $cmd in
    run)
        exec ctest $(ctest_args "${3:-2}");;
    start)
        rm -rf "$state" && mkdir -p "$state" || { echo "ctest_bg: cannot make $state" >&2; exit 1; }
        # its own session, no descriptor of the caller's: mvn's exec step returns at once
        setsid bash -c 'ctest "${@:2}" > "$1/log" 2>&1; echo $? > "$1/rc.tmp" && mv "$1/rc.tmp" "$1/rc"' \
            ctest_bg "$state" $(ctest_args "${3:-2}") < /dev/null > /dev/null 2>&1 &
        echo $! > "$state/pid"
        echo "ctest_bg: ctest started in the background (pid $!, output in $state/log); make test waits for it at the end";;
    wait)
        [ -f "$state/pid" ] || { echo "ctest_bg: no ctest was started in the background ($state)"; exit 3; }
        pid=$(cat "$state/pid") n=0
        echo "ctest_bg: waiting for ctest (pid $pid)"
        until [ -f "$state/rc" ]; do
            if ! kill -0 "$pid" 2>/dev/null && [ ! -f "$state/rc" ]; then
                echo "ctest_bg: ctest (pid $pid) is gone without an exit status"; cat "$state/log"; exit 1
            fi
            n=$((n + 1))
            [ $n -le "$WAIT_LIMIT" ] || { echo "ctest_bg: ctest still running after $WAIT_LIMIT s: stopped"; kill -TERM -- -"$pid" 2>/dev/null; cat "$state/log"; exit 1; }
            sleep 1
        done
        cat "$state/log"
        exit "$(cat "$state/rc")";;
    *) echo "usage: ctest_bg.sh run|start BUILD PARALLEL | wait BUILD" >&2; exit 2;;
esac
