#!/bin/bash
# make bench-lint: mana_lint over 1 million lines of generated C (JVM start included, best of 3), and the
# binary preflight of every ELF under /usr/lib/x86_64-linux-gnu that loads an MPI library (a table).
# Uses share/mana/mpi-coverage.json when the runtime's build wrote it, else a stand-in from the MPI headers.
# Prints tables, then one JSON line. Figures: docs/benchmarks.md.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
lib=$root/lib/java
work=$(mktemp -d /tmp/mana-bench-lint.XXXXXX)
trap 'rm -rf "$work"' EXIT
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
bench() { "$java" -cp "$lib/mpi-diagnostics.jar:$lib/control-plane.jar:$lib/gson.jar" "$root/mpi-diagnostics/bench/LintBench.java" "$@"; }

manifest=$root/share/mana/mpi-coverage.json
if [ ! -f "$manifest" ]; then
  manifest=$work/mpi-coverage.json
  bench manifest "$manifest"
  echo "(no share/mana/mpi-coverage.json yet: a stand-in manifest from the MPI headers)"
fi

lines=${BENCH_LINT_LINES:-1000000}
bench gen "$work/src" "$lines"
actual=$(cat "$work"/src/*.c | wc -l)
best=""
for i in 1 2 3; do
  t0=$(date +%s%N)
  rc=0; "$root/bin/mana_lint" --manifest "$manifest" --quiet "$work/src" > "$work/out.txt" || rc=$?
  t1=$(date +%s%N)
  [ "$rc" -le 1 ] || { echo "mana_lint failed ($rc)" >&2; exit 1; }
  ms=$(( (t1 - t0) / 1000000 ))
  if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
done
findings=$(wc -l < "$work/out.txt")
echo
echo "| source lines | files | findings | mana_lint wall time (best of 3, JVM start included) |"
echo "| ---: | ---: | ---: | ---: |"
echo "| $actual | $(ls "$work/src" | wc -l) | $findings | $best ms |"
echo
bench scan /usr/lib/x86_64-linux-gnu "$manifest" | tee "$work/scan.txt" | grep -v '^{'
scan=$(grep '^{' "$work/scan.txt")
echo "{\"bench\":\"lint\",\"lines\":$actual,\"findings\":$findings,\"lint_ms\":$best,\"scan\":$scan}"
