#!/usr/bin/env python3
"""fortran_names_check.py - the coverage manifest against what the MPIs' Fortran libraries export and need.

  fortran_names_check.py MANIFEST GEN_DIR

MANIFEST is the installed share/mana/mpi-coverage.json, GEN_DIR the build's src/mpi (gen_<mpi>/stub.c).
For each MPI's Fortran libraries (Open MPI: libmpi_mpifh, libmpi_usempi_ignore_tkr, libmpi_usempif08 and
the Fortran functions of libmpi itself; MPICH: libmpichfort):
  1. every Fortran binding it exports (mpi_send, mpi_send_, MPI_SEND, mpi_send__, pmpi_*, mpi_send_f08,
     mpi_send_f08ts_, and beyond the contract's forms: MPICH's large-count mpi_send_f08ts_large_ for
     MPI_Send_c, MPI 3's mpi_alloc_mem_cptr for MPI_Alloc_mem) maps, by the contract's rule
     (docs/mpi-diagnostics.md, "The coverage manifest": case folded, the suffix dropped), to a function
     the manifest lists for that MPI, or is one of the Fortran-only names below (each with why): a
     reader (mana_lint on Fortran sources, the launch preflight on a Fortran binary) then finds every
     Fortran call's status;
  2. every function it takes from the C library (its undefined symbols that the real C library defines)
     is a wrapper of the runtime's, or ends the job with a known reason: an MPI function the manifest
     calls unsupported, or an internal function the runtime's stub names with a Fortran call
     (api/gen_stub.py FORTRAN_ONLY).  An internal function that ends the job as "internal symbol of the
     MPI library" would stop a Fortran program the C program does not stop: that fails.
Prints the counts and one line per problem; exit 0 = PASS.
"""
import json
import os
import re
import subprocess
import sys

LIBDIR = "/usr/lib/x86_64-linux-gnu"
FORTRAN_LIBS = {
    "openmpi": ["openmpi/lib/libmpi_mpifh.so", "openmpi/lib/libmpi_usempi_ignore_tkr.so",
                "openmpi/lib/libmpi_usempif08.so", "libmpi.so.40"],
    "mpich": ["libmpichfort.so.12"],
}
C_LIB = {"openmpi": "libmpi.so.40", "mpich": "libmpich.so.12"}

# Fortran bindings without a C function of the same name, and why they need none.
FORTRAN_ONLY = [
    (r"mpi_sizeof(_.*)?", "MPI_SIZEOF: Fortran only, answered by the Fortran library itself"),
    (r"mpi_f_sync_reg", "MPI_F_SYNC_REG: Fortran only, no MPI state"),
    (r"mpi_(comm_|type_|win_)?(null_copy|null_delete|dup)_fn|mpi_conversion_fn_null(_f)?",
     "a predefined attribute or conversion callback (a procedure the program passes, never calls)"),
    (r"mpi_(wtime|wtick|aint_add|aint_diff)_f90",
     "Open MPI's Fortran twin of the C function without _f90 (the runtime's fortran.c)"),
    (r"mpi_status_f082f|mpi_status_f2f08", "Fortran status conversion, inside the Fortran library"),
    (r"mpi_aint_(add|diff)", "Open MPI's C MPI_Aint_add/diff are macros in mpi.h: no C function, arithmetic in the "
                             "Fortran library"),
    (r"mpi_delete_error_(class|code|string)",
     "MPI 4.1, whose C functions MPICH 4.0 exports only as MPIX_Delete_error_* (an extension: ends the job)"),
]


def dynsyms(path, undefined):
    """{name: type} of a library's dynamic functions and objects, defined or undefined."""
    out = subprocess.run(["readelf", "-W", "--dyn-syms", path], check=True, capture_output=True,
                         text=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[3] not in ("FUNC", "OBJECT", "NOTYPE"):
            continue
        if (f[6] == "UND") != undefined:
            continue
        syms[f[7].split("@")[0]] = f[3]
    return syms


def c_name_of(sym):
    """The C binding a Fortran binding name maps to (lower case), or None when sym is no binding.
    A compiler's names are all lower or all upper case: a mixed-case one (Open MPI's MPI_Send_f,
    MPI_Send_f08 aliases of its internal ompi_send_f) is no name a Fortran call is linked to.  MPI 3's
    TYPE(C_PTR) variants (MPI_ALLOC_MEM_CPTR ...) are the function without _cptr."""
    if sym != sym.lower() and sym != sym.upper():
        return None
    s = sym.lower().rstrip("_")
    if s.startswith("pmpi_"):
        s = s[1:]
    if not s.startswith("mpi_"):
        return None
    large = s.endswith("_large")
    if large:
        s = s[:-len("_large")]
    s = re.sub(r"_f08(ts)?$", "", s)
    s = re.sub(r"_cptr$", "", s)
    return s + "_c" if large else s


def fortran_only(c):
    for pat, why in FORTRAN_ONLY:
        if re.fullmatch(pat, c):
            return why
    return None


def stubbed(gen_dir, mpi):
    """{symbol: (shown name, reason)} of what the runtime's library ends the job in (its stub)."""
    out = {}
    path = os.path.join(gen_dir, "gen_%s" % mpi, "stub.c")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'^ABI void (\w+)\(void\) \{ mana_unsupported\("([^"]*)", "([^"]*)"\); \}', line)
            if m:
                out[m.group(1)] = (m.group(2), m.group(3))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    gen_dir = sys.argv[2]
    problems = 0
    for mpi in ("openmpi", "mpich"):
        listed = {e["name"].lower(): e for e in doc["functions"] if mpi in e["mpis"]}
        stub = stubbed(gen_dir, mpi)
        real_c = dynsyms(os.path.join(LIBDIR, C_LIB[mpi]), False)
        bindings, only, limits = 0, {}, {}
        for lib in FORTRAN_LIBS[mpi]:
            path = os.path.join(LIBDIR, lib)
            exported = dynsyms(path, False)
            # 1. the names a Fortran reader meets
            for sym, t in sorted(exported.items()):
                if t != "FUNC" or (lib == C_LIB[mpi] and not re.match(r"^(p?mpi_|P?MPI_[A-Z0-9_]+$)", sym)):
                    continue
                c = c_name_of(sym)
                if c is None:
                    continue
                if lib == C_LIB[mpi] and sym.startswith(("MPI_", "PMPI_")) and not sym.isupper():
                    continue                           # the C bindings themselves
                bindings += 1
                if c in listed:
                    continue
                why = fortran_only(c)
                if why:
                    only.setdefault(why, set()).add(c)
                    continue
                problems += 1
                print("%s: %s exports %s, which maps to %s: not in the manifest" % (mpi, lib, sym, c))
            # 2. what it takes from the C library
            if lib == C_LIB[mpi]:
                continue
            for sym in sorted(dynsyms(path, True)):
                if sym not in real_c or sym not in stub:
                    continue
                shown, why = stub[sym]
                e = listed.get(shown.lower())
                if e is not None and e["status"] == "unsupported":
                    limits[shown] = why
                elif why != "internal symbol of the MPI library" and e is None:
                    limits[shown] = why
                else:
                    problems += 1
                    print("%s: %s calls %s, which ends the job (%s)" % (mpi, lib, sym, why))
        print("%s: %d Fortran binding names, each in the manifest or Fortran only" % (mpi, bindings))
        for why, names in sorted(only.items()):
            print("  Fortran only, %d name(s) (%s): %s" % (len(names), why, ", ".join(sorted(names)[:4]) +
                                                           (" ..." if len(names) > 4 else "")))
        unsupported = sorted(n for n in limits if n.lower() in listed)
        print("  %d unsupported MPI function(s) end the job from Fortran as from C" % len(unsupported))
        for shown in sorted(n for n in limits if n.lower() not in listed):
            print("  ends the job from Fortran: %s (%s)" % (shown, limits[shown]))
    print("%s: %d problem(s)" % ("PASS" if problems == 0 else "FAIL", problems))
    return 0 if problems == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
