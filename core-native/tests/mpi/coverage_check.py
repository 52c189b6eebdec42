#!/usr/bin/env python3
"""coverage_check.py - the coverage manifest against what the runtime's MPI libraries really do.

  coverage_check.py ROOT

For Open MPI and MPICH alike:
  1. every symbol the real library exports (functions and data objects) is exported by ours,
     so any program linked against the real library loads against ours;
  2. every MPI_/PMPI_ function (C binding) ours exports has an entry in share/mana/mpi-coverage.json that names
     this MPI;
  3. every manifest entry is honest: each function is called (all-zero arguments, in a child process,
     outside the runtime).  An `unsupported` one must end the process with exit status 1 and exactly
     the contract's line `MANA: MPI_X is not supported under checkpointing (REASON)` with the
     manifest's reason; a `supported` or `partial` one must never print that line (it reaches a
     wrapper, which refuses to run outside mana_launch, or returns).
Prints one line per problem, then a summary; exit 0 = PASS.
"""
import ctypes
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


def call(lib, name):
    """(exit status, output) of a child that calls NAME with ten zero arguments."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 1)
        os.dup2(w, 2)
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        fn(*([ctypes.c_long(0)] * 10))
        os._exit(100)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, st = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(st), b"".join(chunks).decode(errors="replace")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
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
        lib = ctypes.CDLL(ours_path, mode=os.RTLD_NOW | ctypes.RTLD_GLOBAL)
        for base, e in sorted(entries.items()):
            if mpi not in e.get("mpis", []) or ours.get(base) != "F":
                continue
            checked += 1
            rc, out = call(lib, base)
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
