#!/usr/bin/env python3
"""test_bench_json.py ROOT - every `make bench-*` holds its last line to be a JSON object, and the
figures docs/ keeps from them parse.

1. bench_run.py (the wrapper every bench target runs through) passes a benchmark whose last line is a
   JSON object, fails one whose last line is `.869`-style shell arithmetic, NaN, a non-object or
   nothing, and keeps a failing benchmark's own exit status.
2. Every `bench-*` target of the Makefile runs its script through $(BENCH_RUN).
3. Every line of docs/*.md that is a JSON object on its own (the recorded last lines) parses.
"""
import glob
import os
import re
import subprocess
import sys
import json

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../.."))
RUN = os.path.join(ROOT, "core-native/bench/bench_run.py")
failures = []


def not_json(constant):
    raise ValueError(f"{constant} is not a JSON number")     # Python's parser takes NaN; JSON does not


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(script):
    p = subprocess.run([sys.executable, RUN, "sh", "-c", script], capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


cases = [
    ('echo table; echo \'{"a": 0.869, "ok": true, "s": "x"}\'', 0, None),
    ('echo \'{"a": 1}\'; echo', 0, None),                         # trailing blank line: the last non-blank counts
    ('echo \'{"a": .869}\'', 1, "not JSON"),
    ('echo \'{"a": NaN}\'', 1, "not JSON"),
    ('echo \'{"a": 1.}\'', 1, "not JSON"),
    ("echo '[1, 2]'", 1, "not an object"),
    ("echo '{\"a\": 1}'; echo 'done'", 1, "not JSON"),
    ("true", 1, "no output"),
    ("echo '{\"a\": 1}'; exit 3", 3, None),
]
for script, want_rc, want_err in cases:
    rc, out, err = run(script)
    if rc != want_rc:
        fail(f"bench_run on {script!r}: exit {rc}, want {want_rc} (stderr: {err.strip()})")
    if want_err and want_err not in err:
        fail(f"bench_run on {script!r}: stderr {err.strip()!r} does not say {want_err!r}")
    if "table" in script and "table" not in out:
        fail("bench_run did not pass the benchmark's output through")

with open(os.path.join(ROOT, "Makefile")) as f:
    make = f.read()
targets = re.findall(r"^(bench-[\w-]+):[^\n]*\n((?:\t[^\n]*\n)+)", make, re.M)
if len(targets) < 7:
    fail(f"only {len(targets)} bench-* targets found in the Makefile")
for name, recipe in targets:
    scripts = [l for l in recipe.splitlines() if "/bench/" in l and ".sh" in l]
    if not scripts:
        fail(f"{name}: no benchmark script in its recipe")
    for l in scripts:
        if "$(BENCH_RUN)" not in l:
            fail(f"{name}: runs {l.strip()} without $(BENCH_RUN)")

seen = 0
for md in sorted(glob.glob(os.path.join(ROOT, "docs/*.md"))):
    with open(md) as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if s.startswith("{") and s.endswith("}") and '":' in s:
                seen += 1
                try:
                    json.loads(s, parse_constant=not_json)
                except ValueError as e:
                    fail(f"{os.path.relpath(md, ROOT)}:{n}: a benchmark's JSON line that does not parse ({e})")
if seen == 0:
    fail("no benchmark JSON lines found in docs/*.md")

print(f"{len(cases)} wrapper cases, {len(targets)} bench targets, {seen} JSON lines in docs: "
      + ("all good" if not failures else f"{len(failures)} failure(s)"))
sys.exit(1 if failures else 0)
