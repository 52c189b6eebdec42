"""exports.py - what a shared library exports, from `nm -D --defined-only`.

The stub and the version script need every symbol (functions and data objects, with the objects'
sizes); the description needs the set of MPI_* functions.
"""
import re
import subprocess

C_NAME = re.compile(r"^P?MPI_[A-Z][a-z0-9_]*$")


def symbols(lib):
    """[(name, kind, size)] in the library's order; kind 'F' function, 'D' data (size >= 8)."""
    out = subprocess.run(["nm", "-D", "-S", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    syms = []
    seen = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            _, size, t, name = parts
        elif len(parts) == 3:
            _, t, name = parts
            size = "8"
        else:
            continue
        name = name.split("@")[0]
        if name in seen:
            continue
        if t in "TtWiw":
            syms.append((name, "F", 0))
        elif t in "DdBbRrVvGgSs":
            syms.append((name, "D", max(int(size, 16), 8)))
        else:
            continue
        seen.add(name)
    return syms


def mpi_functions(syms):
    """The C bindings (MPI_X) whose MPI_X or PMPI_X the library exports as a function."""
    names = set()
    for name, kind, _ in syms:
        if kind == "F" and C_NAME.match(name):
            names.add(name[1:] if name.startswith("PMPI_") else name)
    return names
