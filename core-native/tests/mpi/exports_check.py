#!/usr/bin/env python3
"""exports_check.py - the installed upper-half libraries export nothing but their interface.

  exports_check.py ROOT [LIBMANA_MAP]

Every name a library in the upper half exports is in the program's global symbol scope, behind the
program and the libraries loaded before it: a program (or library) that defines a global of the same
name takes the library's own references over.  So:
  1. lib/mana/openmpi/libmpi.so.40 and lib/mana/mpich/libmpich.so.12 may define, among their dynamic
     symbols, only names the real library of that soname defines (the MPI ABI);
  2. lib/libmana.so may define only functions of libc.so.6 (the ones it interposes: signals, exec,
     timers, mutexes) and mana_mpi_register, which the MPI library looks up in it (mana_mpi_iface.h);
     with LIBMANA_MAP (src/plugin/libmana.map, its version script), exactly the names listed there, so
     a name listed but not marked MANA_EXPORT in the source (hence not exported) is found too.
That every name of the real library is exported too is coverage_check.py's first check.
Prints one line per problem, then a summary; exit 0 = PASS.
"""
import os
import re
import subprocess
import sys

REAL = {"openmpi": "/usr/lib/x86_64-linux-gnu/libmpi.so.40", "mpich": "/usr/lib/x86_64-linux-gnu/libmpich.so.12"}
OURS = {"openmpi": "lib/mana/openmpi/libmpi.so.40", "mpich": "lib/mana/mpich/libmpich.so.12"}
PLUGIN = "lib/libmana.so"
# What the MPI library finds in the plugin (src/common/mana_mpi_iface.h); the rest comes through it.
HANDSHAKE = {"mana_mpi_register"}


def defined(lib):
    """{name: nm type letter} of the defined dynamic symbols."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            syms[parts[-1].split("@")[0]] = parts[-2]
    return syms


def libc_of(lib):
    """The libc.so.6 that lib is loaded with (ldd), so the check follows the machine's."""
    out = subprocess.run(["ldd", lib], check=True, capture_output=True, text=True).stdout
    m = re.search(r"libc\.so\.6 => (\S+)", out)
    if not m:
        sys.exit("exports_check: no libc.so.6 in ldd %s" % lib)
    return m.group(1)


def map_globals(path):
    """The names of a version script's global: list."""
    text = re.sub(r"/\*.*?\*/", " ", open(path, encoding="utf-8").read(), flags=re.S)
    m = re.search(r"global\s*:(.*?)(local\s*:|\}\s*;)", text, flags=re.S)
    return {n.strip() for n in m.group(1).split(";") if n.strip()} if m else set()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    plugin_map = sys.argv[2] if len(sys.argv) > 2 else None
    problems = 0

    def extra(lib, name, kind, why):
        nonlocal problems
        problems += 1
        print("exports_check: %s exports %s (nm type %s), %s" % (lib, name, kind, why))

    for mpi in ("openmpi", "mpich"):
        ours_path = os.path.join(root, OURS[mpi])
        real = defined(REAL[mpi])
        for name, kind in sorted(defined(ours_path).items()):
            if name not in real:
                extra(OURS[mpi], name, kind, "which %s does not" % REAL[mpi])
    plugin = os.path.join(root, PLUGIN)
    libc = {n for n, k in defined(libc_of(plugin)).items() if k in "TWi"}
    ours = defined(plugin)
    for name, kind in sorted(ours.items()):
        if name in HANDSHAKE:
            continue
        if kind not in "TW" or name not in libc:
            extra(PLUGIN, name, kind, "which is neither a libc function it interposes nor the MPI library's handshake")
    if plugin_map:
        listed = map_globals(plugin_map)
        for name in sorted(set(ours) - listed):
            extra(PLUGIN, name, ours[name], "which %s does not list" % plugin_map)
        for name in sorted(listed - set(ours)):
            problems += 1
            print("exports_check: %s lists %s, which %s does not export (not MANA_EXPORT at its definition?)"
                  % (plugin_map, name, PLUGIN))
    print("exports_check: %d problem(s)" % problems)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
