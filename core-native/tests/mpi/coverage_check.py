#!/usr/bin/env python3
"""coverage_check.py - the coverage manifest against what the runtime's MPI libraries really do.

  coverage_check.py ROOT [COVERAGE_CALL]

For Open MPI and MPICH alike:
  1. every symbol the real library exports (functions and data objects) is exported by ours,
     so any program linked against the real library loads against ours;
  2. every MPI_/PMPI_ function (C binding) ours exports has an entry in share/mana/mpi-coverage.json that names
     this MPI;
  3. every manifest entry is honest: each function is called (all-zero arguments, in a child process,
     outside the runtime).  An `unsupported` one must end the process with exit status 1 and exactly
     the contract's line `MANA: MPI_X is not supported under checkpointing (REASON)` with the
     manifest's reason; a `supported` or `partial` one must never print that line (it reaches a
     wrapper, which refuses to run outside mana_launch, or returns).  The calls are made by
     COVERAGE_CALL (coverage_call.c, built with the tests), one small child process each.
Prints one line per problem, then a summary; exit 0 = PASS.
"""
import json
import os
import re
import subprocess
import sys

REAL = {"openmpi": "/usr/lib/x86_64-linux-gnu/libmpi.so.40", "mpich": "/usr/lib/x86_64-linux-gnu/libmpich.so.12"}
OURS = {"openmpi": "lib/mana/openmpi/libmpi.so.40", "mpich": "lib/mana/mpich/libmpich.so.12"}
MARK = "is not supported under checkpointing"
# C bindings, as the manifest names them (src/mpi/api/exports.py); all-caps names are Fortran entry points and the
# predefined callbacks (MPI_COMM_DUP_FN...), which the manifest does not list.
C_NAME = re.compile(r"^P?MPI_[A-Z][a-z0-9_]*$")


def exports(lib):
    """{name: 'F' or 'D'} of the defined dynamic symbols."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        t, name = parts[-2], parts[-1].split("@")[0]
        syms[name] = "F" if t in "TtWwi" else "D"
    return syms


def call_all(helper, lib, names):
    """{name: (exit status, output)}: coverage_call (coverage_call.c) calls each NAME of LIB with ten zero
    arguments, one child process each."""
    if not os.access(helper, os.X_OK):
        sys.exit(f"coverage_check: no helper at {helper} (ctest passes the built coverage_call as the second argument)")
    r = subprocess.run([helper, lib], input="".join(n + "\n" for n in names).encode(), capture_output=True)
    if r.returncode != 0:
        sys.exit(f"coverage_check: {helper} failed ({r.returncode}): {r.stderr.decode(errors='replace').strip()}")
    out, res, i = r.stdout, {}, 0
    while i < len(out):
        nl = out.index(b"\n", i)
        name, rc, n = out[i:nl].decode().split(" ")
        body = out[nl + 1:nl + 1 + int(n)]
        res[name] = (int(rc), body.decode(errors="replace"))
        i = nl + 1 + int(n)
    missing = [n for n in names if n not in res]
    if missing:
        sys.exit(f"coverage_check: {helper} reported nothing for {', '.join(missing[:5])}")
    return res


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    helper = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "coverage_call")
    manifest = json.load(open(os.path.join(root, "share/mana/mpi-coverage.json")))
    entries = {e["name"]: e for e in manifest["functions"]}
    problems = 0
    checked = 0

    def bad(msg):
        nonlocal problems
        problems += 1
        print("coverage_check: " + msg)

    for mpi in ("openmpi", "mpich"):
        ours_path = os.path.join(root, OURS[mpi])
        real, ours = exports(REAL[mpi]), exports(ours_path)
        for name, kind in sorted(real.items()):
            if name not in ours:
                bad(f"{mpi}: {name} ({'function' if kind == 'F' else 'data'}) is exported by the real library, not by ours")
        funcs = sorted(n for n, k in ours.items() if k == "F" and C_NAME.match(n))
        for name in funcs:
            base = name[1:] if name.startswith("PMPI_") else name
            e = entries.get(base)
            if e is None:
                bad(f"{mpi}: {name} is exported but missing from the manifest")
            elif mpi not in e.get("mpis", []):
                bad(f"{mpi}: {name} is exported but its manifest entry does not name {mpi}")
        called = [b for b, e in sorted(entries.items()) if mpi in e.get("mpis", []) and ours.get(b) == "F"]
        results = call_all(helper, ours_path, called)
        for base in called:
            e = entries[base]
            checked += 1
            rc, out = results[base]
            if e["status"] == "unsupported":
                want = f"MANA: {base} {MARK} ({e.get('reason', '')})"
                if rc != 1 or out.strip() != want:
                    bad(f"{mpi}: {base} is unsupported in the manifest, but calling it gave exit {rc} and {out.strip()!r}"
                        f" (want exit 1 and {want!r})")
            elif MARK in out:
                bad(f"{mpi}: {base} is {e['status']} in the manifest, but the runtime says {out.strip()!r}")
    print(f"coverage_check: {checked} functions called, {len(entries)} manifest entries, {problems} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
