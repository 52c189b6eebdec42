#!/usr/bin/env bash
# bench_gdb.sh: attach + both halves' symbols + release of ranks paused at restart (MANA_RESTART_PAUSE=2),
# for one rank and for 4 ranks at once, and gdb's RSS per rank (targets: < 2 s, < 4 s); then the same for
# the 4 ranks of one Open MPI job of the runtime's heat_mpi.
# The test program of gdb-integration's tests (a program linked against a shared library, two threads)
# is built here with gcc -g. Prints a table, then ONE JSON object as the last line.
# Env: TRIALS (default 5), BENCH_DIR (default: a fresh directory under /tmp, removed at the end).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LIB="$ROOT/lib/java"
[ -x "$ROOT/bin/mana_launch" ] && [ -f "$LIB/gdb-integration.jar" ] || { echo "bench_gdb: run make build first" >&2; exit 1; }
DIR="${BENCH_DIR:-$(mktemp -d /tmp/mana-gdb-bench.XXXXXX)}"
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
SRC="$ROOT/gdb-integration/src/test/resources/programs"
gcc -g -O0 -fPIC -shared -o "$DIR/libsplitstep.so" "$SRC/splitstep.c"
gcc -g -O0 -o "$DIR/splitapp" "$SRC/splitapp.c" -L"$DIR" -lsplitstep -pthread -Wl,-rpath,'$ORIGIN'
# the MPI part: the runtime's heat_mpi on 4 ranks of one Open MPI job (skipped without Open MPI)
MPI_PROG=
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
  cp "$ROOT/core-native/examples/heat_mpi.c" "$DIR/heat_mpi.c"
  mpicc.openmpi -g -O0 -o "$DIR/heat_mpi" "$DIR/heat_mpi.c" && MPI_PROG="$DIR/heat_mpi"
fi
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
"$JAVA" -cp "$LIB/gdb-integration.jar:$LIB/image-inspector.jar:$LIB/control-plane.jar:$LIB/picocli.jar:$LIB/gson.jar" \
  "$ROOT/gdb-integration/bench/BenchAttach.java" "$ROOT" "$DIR" "$DIR/splitapp" "${TRIALS:-5}" $MPI_PROG
