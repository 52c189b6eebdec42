#!/usr/bin/env python3
"""coverage_gate.py - every function the coverage manifest calls `supported` or `partial` is called by a
test program that is checkpointed, killed and restarted, on each MPI that exports it.

  coverage_gate.py MANIFEST PROGRAMS [--list]

MANIFEST: share/mana/mpi-coverage.json (format: docs/mpi-diagnostics.md, "The coverage manifest").
PROGRAMS: written by tests/mpi/CMakeLists.txt at configure time, one line per registered checkpoint/restart
case: ABI, mode, compiler, source, then the compiler flags of the build (tab-separated).  Only the modes
that kill the job and restart it (kill, cycles, reconnect) count.

For each ABI, each such program is preprocessed with that MPI's own compiler and the build's flags
(`mpicc.mpich -E ...`), so the `#if MPI_VERSION >= 4` guards fall as they do in the build.  The calls
counted are the identifiers MPI_Xxx / PMPI_Xxx followed by `(` in the program's own code: the lines the
preprocessor's line markers place in the test's source or in a header of the test directory (mpitest.h),
never in a system header (the MPI header's own declarations).  String literals do not count.
A function is covered on an ABI when one such program built for that ABI calls it, or when the ALLOWLIST
below names the test that covers it instead.  Prints, per ABI, every supported or partial function that
is not covered; exit 1 if there is any.  --list: also print, per ABI, each covered function and the
programs (or the allowlist entry) that cover it.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys

# Covered by another test, because no checkpointed program can call it between two checkpoints.
# Reviewed: each entry names the test that covers it and why no checkpointed program can.  Keep it short.
ALLOWLIST = {
    "MPI_Abort": ("mpi_*_exit (exit_mpi.sh), mpi_*_errors (errors_mpi.sh)",
                  "a program that aborts cannot be checkpointed after the call; mpitest.h calls it only "
                  "when a check fails, so its presence in the checkpointed programs proves nothing"),
    "MPI_File_preallocate": ("mpi_mpich_calls_io_2_kill (MPICH only)",
                             "Open MPI 4.1.4's own MPI_File_preallocate fails now and then with MPI_ERR_OTHER "
                             "(natively, on a file other ranks have just written; under the runtime, after a "
                             "restart): calls_io.c calls it on MPICH only; the wrapper is the same generated code"),
}

# cr_mpi.sh's modes that checkpoint, kill and restart the job (`continue` never kills it)
KILLED = ("kill", "cycles", "reconnect", "incremental", "forked")
CALL = re.compile(r"\b(P?MPI_[A-Za-z0-9_]+)\s*\(")
MARKER = re.compile(r'^#\s*(?:line\s+)?\d+\s+"((?:\\.|[^"\\])*)"')
STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


def read_programs(path):
    """[(abi, mode, compiler, source, [flags])]"""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) < 4:
                sys.exit("coverage_gate: bad line in %s: %r" % (path, line))
            abi, mode, cc, src = fields[:4]
            flags = [x for x in fields[4:] if x]
            out.append((abi, mode, cc, src, flags))
    return out


def calls(cc, src, flags):
    """The MPI functions (C names, PMPI_ folded to MPI_) the program's own code calls, once preprocessed."""
    cmd = [cc, "-E"] + flags + [src]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("coverage_gate: %s failed:\n%s" % (" ".join(cmd), r.stderr))
    own_dir = os.path.dirname(os.path.realpath(src))
    own = {}                      # file name from a line marker -> is it the program's own code
    cur_own = True
    names = set()
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            m = MARKER.match(line)
            if m:
                fname = m.group(1)
                if fname not in own:
                    real = os.path.realpath(fname) if not fname.startswith("<") else ""
                    own[fname] = bool(real) and os.path.dirname(real) == own_dir
                cur_own = own[fname]
            continue
        if not cur_own:
            continue
        for m in CALL.finditer(STRINGS.sub('""', line)):
            name = m.group(1)
            names.add(name[1:] if name.startswith("PMPI_") else name)
    return names


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    listing = "--list" in sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    manifest_path, programs_path = args
    if not os.path.exists(manifest_path):
        sys.exit("coverage_gate: no manifest at %s (build first)" % manifest_path)
    manifest = json.load(open(manifest_path))
    abis = [m["id"] for m in manifest["mpis"]]
    wanted = {abi: sorted(f["name"] for f in manifest["functions"]
                          if f["status"] in ("supported", "partial") and abi in f["mpis"]) for abi in abis}
    covered = {abi: {} for abi in abis}          # abi -> name -> [program, ...]
    scanned = {abi: [] for abi in abis}
    cases = [c for c in read_programs(programs_path) if c[1] in KILLED and c[0] in covered]
    keys = sorted({(cc, src, tuple(flags)) for _, _, cc, src, flags in cases})
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:     # two cores on CI
        found = dict(zip(keys, pool.map(lambda k: calls(k[0], k[1], list(k[2])), keys)))
    for abi, mode, cc, src, flags in cases:
        prog = os.path.basename(src)
        if prog not in scanned[abi]:
            scanned[abi].append(prog)
        for name in found[(cc, src, tuple(flags))]:
            progs = covered[abi].setdefault(name, [])
            if prog not in progs:
                progs.append(prog)

    missing_total = 0
    for abi in abis:
        missing = [n for n in wanted[abi] if n not in covered[abi] and n not in ALLOWLIST]
        allowed = [n for n in wanted[abi] if n in ALLOWLIST]
        print("coverage_gate: %s: %d supported/partial functions; %d called by the %d checkpointed programs, "
              "%d by the allowlist, %d not covered"
              % (abi, len(wanted[abi]), len(wanted[abi]) - len(missing) - len(allowed), len(scanned[abi]),
                 len(allowed), len(missing)))
        if listing:
            for n in wanted[abi]:
                if n in ALLOWLIST:
                    print("  %s %s: allowlist: %s" % (abi, n, ALLOWLIST[n][0]))
                elif n in covered[abi]:
                    print("  %s %s: %s" % (abi, n, " ".join(sorted(covered[abi][n]))))
        for n in missing:
            print("coverage_gate: %s: NOT COVERED: %s" % (abi, n))
        missing_total += len(missing)
    for n, (test, why) in sorted(ALLOWLIST.items()):
        if not any(n in wanted[abi] for abi in abis):
            print("coverage_gate: note: allowlist entry %s is no longer supported or partial in the manifest; "
                  "drop it" % n)
    if missing_total:
        print("coverage_gate: FAIL: %d function(s) not called by any checkpointed test program (a kill, "
              "cycles or reconnect case in tests/mpi/CMakeLists.txt) built for that MPI" % missing_total)
        return 1
    print("coverage_gate: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
