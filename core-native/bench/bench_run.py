#!/usr/bin/env python3
"""bench_run.py COMMAND [ARGS...] - run one benchmark (make bench-*), its output passed through as it
comes, and hold it to its promise: the last line is one JSON object that a JSON parser accepts.

Every benchmark ends with such a line so that its figures can be collected by a program (docs/
benchmarks.md keeps them). Shell arithmetic makes numbers such as `.869` or `1.` easily, and no JSON
parser reads those; a benchmark that printed one once went unnoticed. Exit status: the benchmark's own
when it failed, 1 when it succeeded but its last line is not a JSON object, else 0.
"""
import json
import subprocess
import sys


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")     # Python's parser takes NaN and Infinity; JSON does not


def check_last_line(line):
    """None when line is a JSON object, else why not."""
    try:
        value = json.loads(line, parse_constant=_no_constant)
    except ValueError as e:
        return f"not JSON ({e})"
    if not isinstance(value, dict):
        return "JSON, but not an object"
    return None


def main(argv):
    if not argv:
        print("usage: bench_run.py COMMAND [ARGS...]", file=sys.stderr)
        return 2
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE)
    except OSError as e:
        print(f"bench_run: cannot run {argv[0]}: {e}", file=sys.stderr)
        return 127
    last = b""
    for raw in proc.stdout:
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        if raw.strip():
            last = raw
    rc = proc.wait()
    if rc != 0:
        return rc
    line = last.decode("utf-8", "replace").strip()
    why = check_last_line(line) if line else "no output"
    if why:
        print(f"bench_run: {argv[0]}: its last line is {why}: {line[:200]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
