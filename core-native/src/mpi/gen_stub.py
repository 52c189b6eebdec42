#!/usr/bin/env python3
"""gen_stub.py - the generated half of the upper half's MPI library, and the coverage manifest.

  gen_stub.py stub --abi openmpi|mpich --lib REAL.so --out STUB.c --map EXPORTS.map WRAPPER.c...
      STUB.c: every symbol the real library exports and the wrappers do not define, so that any
      program linked against the real library loads against ours: functions end the job with the
      contract's message (MANA: MPI_X is not supported under checkpointing (reason)); data
      objects get the real object's size (Open MPI's predefined handles are their addresses; the
      wrappers store the real handle in their first 8 bytes).
      EXPORTS.map: the linker version script of our library, from the same list: exactly the real
      library's names are global (each defined by a wrapper or the stub), everything else local.
      The library's internals (lower, real, vtab, vnew, coll_enter...) would otherwise be in the
      program's global scope, where a global of the program's with the same name takes them over.

  gen_stub.py manifest --lib openmpi=REAL.so --lib mpich=REAL.so --version V --json OUT --md OUT WRAPPER.c...
      ../shared/contracts/mpi-coverage.md: one entry per MPI_* function either library exports.

The wrapped set is read from the wrapper sources (every `PMPI_Name(` definition at the start of a
line), so the stub, the runtime and the manifest cannot disagree.
"""
import json
import re
import subprocess
import sys

# Why a function is not supported yet, by family (first match wins).
REASONS = [
    (r"^MPI_File_|^MPI_Register_datarep", "MPI-IO cannot be checkpointed yet"),
    (r"^MPI_Win_|^MPI_(Put|Get|Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap|Rput|Rget|Raccumulate|Rget_accumulate)$",
     "one-sided communication cannot be checkpointed yet"),
    (r"^MPI_Comm_(spawn|spawn_multiple|get_parent|accept|connect|join|disconnect)$|^MPI_(Open_port|Close_port|Publish_name|Unpublish_name|Lookup_name)$",
     "dynamic processes cannot be checkpointed"),
    (r"^MPI_T_", "the MPI tool interface is not available under checkpointing"),
    (r"^MPI_(Psend_init|Precv_init|Pready|Pready_range|Pready_list|Parrived)$", "partitioned communication (MPI 4) is not wrapped"),
    (r"_init$", "persistent collectives (MPI 4) are not wrapped yet"),
    (r"^MPI_Session_", "MPI-4 sessions are not supported under checkpointing; use MPI_Init"),
    (r"^MPI_Errhandler_(create|get|set)$",
     "removed in MPI-3: use MPI_Comm_create_errhandler, MPI_Comm_get_errhandler, MPI_Comm_set_errhandler"),
    (r"^MPI_Grequest_", "generalized requests cannot be checkpointed yet"),
]

# Wrapped, with a limit the user should know.
PARTIAL = {
    "MPI_Init_thread": "MPI_THREAD_MULTIPLE is granted as MPI_THREAD_SERIALIZED",
    "MPI_Comm_idup_with_info": "hints are kept for MPI_Comm_get_info but not given to the MPI library",
    "MPI_Comm_create_group": "collective over the group only: a checkpoint that comes while some members are inside it and others wait at another collective times out",
    "MPI_Comm_dup_with_info": "hints are kept for MPI_Comm_get_info but not given to the MPI library",
    "MPI_Comm_set_info": "hints are kept for MPI_Comm_get_info but not given to the MPI library",
    "MPI_Dist_graph_create": "the info hints are not given to the MPI library",
    "MPI_Dist_graph_create_adjacent": "the info hints are not given to the MPI library",
    "MPI_Intercomm_create": "collective over the two groups: a checkpoint that comes while one group is inside it and the other waits elsewhere times out",
    "MPI_Op_create": "at most 64 different user functions in operations that are live at once",
}

C_NAME = re.compile(r"^P?MPI_[A-Z][a-z0-9_]*$")


def reason_for(name):
    for pat, why in REASONS:
        if re.search(pat, name):
            return why
    return "not wrapped by this runtime yet"


def exports(lib):
    """[(name, kind, size)] of the defined dynamic symbols; kind 'F' function, 'D' data."""
    out = subprocess.run(["nm", "-D", "-S", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    syms = []
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
        if t in "TtWiw":
            syms.append((name, "F", 0))
        elif t in "DdBbRrVvGgSs":
            syms.append((name, "D", max(int(size, 16), 8)))
    return syms


def wrapped(sources):
    names = set()
    for src in sources:
        with open(src, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^[A-Za-z_][\w \*]*\bPMPI_(\w+)\s*\(", line)
                if m:
                    names.add("MPI_" + m.group(1))
    return names


def defined_extra(sources):
    """Other exported symbols the wrappers define, so the stub leaves them out: the predefined
    attribute callbacks (Open MPI's OMPI_C_MPI_*_FN, MPICH's MPIR_Dup_fn) and constant pointers
    with their values (MPICH's MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY: `int *const NAME = ...`)."""
    names = set()
    for src in sources:
        with open(src, encoding="utf-8") as f:
            for line in f:
                m = (re.match(r"^(?:int\s+|[A-Z_]+\()((?:OMPI_C_|MPIR_)\w+)", line)
                     or re.match(r"^int \*const (MPI_\w+) =", line))
                if m:
                    names.add(m.group(1))
    return names


def is_predef(abi, name):
    return abi == "openmpi" and (name.startswith("ompi_mpi_") or name in (
        "ompi_request_null", "ompi_message_null", "ompi_message_no_proc"))


def cmd_stub(args):
    abi = lib = out = mapout = None
    srcs = []
    it = iter(args)
    for a in it:
        if a == "--abi": abi = next(it)
        elif a == "--lib": lib = next(it)
        elif a == "--out": out = next(it)
        elif a == "--map": mapout = next(it)
        else: srcs.append(a)
    have = wrapped(srcs)
    have |= {"P" + n for n in have}
    have |= defined_extra(srcs)
    # The library is built with -fvisibility=hidden: the stub's definitions are API, so default.
    lines = [
        "/* Generated by gen_stub.py from %s: do not edit. */" % lib,
        "#include <stdint.h>",
        "#define ABI __attribute__((visibility(\"default\")))",
        "__attribute__((noreturn, visibility(\"hidden\"))) void mana_unsupported(const char *fn, const char *reason);",
        "",
    ]
    predef = []
    seen = set()
    exported = []             # the real library's names, in its order: the version script's globals
    for name, kind, size in exports(lib):
        if name in seen or name.startswith("_"):
            continue
        seen.add(name)
        exported.append(name)
        if name in have:
            continue
        if kind == "F":
            cname = name[1:] if name.startswith("PMPI_") else name
            why = reason_for(cname) if C_NAME.match(name) else "internal symbol of the MPI library"
            lines.append('ABI void %s(void) { mana_unsupported("%s", "%s"); }' % (name, cname, why))
        else:
            lines.append("ABI char %s[%d] __attribute__((aligned(64)));" % (name, size))
            if is_predef(abi, name):
                predef.append(name)
    lines.append("")
    lines.append("const unsigned mana_predef_count = %d;" % len(predef))
    lines.append("const char *const mana_predef_names[] = { %s };" %
                 ", ".join(['"%s"' % n for n in predef] + ["0"]))
    lines.append("void *const mana_predef_addrs[] = { %s };" % ", ".join([n for n in predef] + ["0"]))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    # Anonymous version (no version node): the real library's symbols are unversioned, and so must
    # ours be for a program linked against either to load against the other.
    vs = ["/* Generated by gen_stub.py from %s: do not edit.  The dynamic symbols of the upper half's" % lib,
          "   MPI library: the real library's, every one defined by a wrapper or the stub; the rest local. */",
          "{", "  global:"]
    vs += ["    %s;" % n for n in exported]
    vs += ["  local:", "    *;", "};"]
    with open(mapout, "w", encoding="utf-8") as f:
        f.write("\n".join(vs) + "\n")


def cmd_manifest(args):
    libs = {}
    version = "0.0.0"
    jout = mdout = None
    srcs = []
    it = iter(args)
    for a in it:
        if a == "--lib":
            k, v = next(it).split("=", 1)
            libs[k] = v
        elif a == "--version": version = next(it)
        elif a == "--json": jout = next(it)
        elif a == "--md": mdout = next(it)
        else: srcs.append(a)
    have = wrapped(srcs)
    mpis_meta = {
        "openmpi": {"id": "openmpi", "version": "4.1.4", "soname": "libmpi.so.40", "fortran_soname": "libmpi_mpifh.so.40"},
        "mpich": {"id": "mpich", "version": "4.0.2", "soname": "libmpich.so.12", "fortran_soname": "libmpichfort.so.12"},
    }
    by_name = {}
    for mpi, lib in libs.items():
        for name, kind, _ in exports(lib):
            if kind != "F" or not C_NAME.match(name):
                continue
            cname = name[1:] if name.startswith("PMPI_") else name
            by_name.setdefault(cname, set()).add(mpi)
    funcs = []
    for name in sorted(by_name):
        e = {"name": name}
        if name in have and name in PARTIAL:
            e["status"] = "partial"
        elif name in have:
            e["status"] = "supported"
        else:
            e["status"] = "unsupported"
        e["mpis"] = [m for m in ("openmpi", "mpich") if m in by_name[name]]
        if e["status"] == "partial":
            e["reason"] = PARTIAL[name]
        elif e["status"] == "unsupported":
            e["reason"] = reason_for(name)
        funcs.append(e)
    doc = {"format": "mana-mpi-coverage", "version": 1, "runtime": version,
           "mpis": [mpis_meta[m] for m in ("openmpi", "mpich") if m in libs], "functions": funcs}
    with open(jout, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    counts = {s: sum(1 for e in funcs if e["status"] == s) for s in ("supported", "partial", "unsupported")}
    md = ["# MPI coverage", "",
          "Generated by `core-native/src/mpi/gen_stub.py` from the wrapper sources and both MPIs' libraries "
          "(the same data as `share/mana/mpi-coverage.json`, format: ../shared/contracts/mpi-coverage.md). "
          "Do not edit by hand: `make build` writes it.", "",
          "| status | functions |", "| --- | --- |"]
    for s in ("supported", "partial", "unsupported"):
        md.append("| %s | %d |" % (s, counts[s]))
    md += ["", "An `unsupported` call ends the job with `MANA: MPI_X is not supported under checkpointing (reason)`.", "",
           "| function | status | MPIs | reason |", "| --- | --- | --- | --- |"]
    for e in funcs:
        md.append("| `%s` | %s | %s | %s |" % (e["name"], e["status"], ", ".join(e["mpis"]), e.get("reason", "")))
    with open(mdout, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("stub", "manifest"):
        sys.exit("usage: gen_stub.py stub|manifest ...")
    (cmd_stub if sys.argv[1] == "stub" else cmd_manifest)(sys.argv[2:])
