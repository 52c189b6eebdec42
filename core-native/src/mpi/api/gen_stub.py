"""gen_stub.py - the stub and the linker version script of one ABI.

The stub defines every symbol the real library exports that no wrapper defines, so that any program
linked against the real library loads against ours: functions end the job with the contract's
message (MANA: MPI_X is not supported under checkpointing (reason)); data objects get the real
object's size (Open MPI's predefined handles are their addresses; the wrappers store the real handle
in their first 8 bytes, and mana_predef_names/addrs let core.c fill them in).
The version script makes exactly the real library's names global (each defined by a wrapper or the
stub) and everything else local: the library's internals (lower, real, vtab, vnew, coll_enter...)
would otherwise be in the program's global scope, where a global of the program's with the same name
takes them over.
"""
import re

C_NAME = re.compile(r"^P?MPI_[A-Z][a-z0-9_]*$")


# fortran.c's exported definitions: `MANA_ABI <type> NAME(`, `MANA_ABI <type> *NAME =`, and
# `FORTRAN_ALIAS(target, NAME)`
MANA_ABI_DEF = re.compile(r"^MANA_ABI\s+(?!__typeof__)[\w\s\*]*?\b(\w+)\s*[(\[=;]")
FORTRAN_ALIAS = re.compile(r"^FORTRAN_ALIAS\(\w+,\s*(\w+)\)")

# Internal functions of the real libraries that only their Fortran bindings call, and that this runtime
# does not provide: the Fortran call a user made, for the message, and why.
FORTRAN_ONLY = {
    "ompi_attr_create_keyval_aint": ("MPI_Comm/Type/Win_create_keyval from Fortran",
                                     "attribute copy and delete functions written in Fortran are not supported yet"),
    "ompi_attr_create_keyval_fint": ("MPI_Keyval_create from Fortran",
                                     "attribute copy and delete functions written in Fortran are not supported yet"),
    "MPII_Keyval_set_proxy": ("MPI_Comm/Type/Win_create_keyval from Fortran",
                              "attribute copy and delete functions written in Fortran are not supported yet"),
    "ompi_errhandler_create": ("MPI_Comm/File/Win_create_errhandler from Fortran",
                               "error handlers written in Fortran are not supported yet"),
    "MPII_Grequest_set_lang_f77": ("MPI_Grequest_start from Fortran",
                                   "generalized requests with Fortran callbacks are not supported yet"),
    "ompi_fortran_argv_blank_f2c": ("MPI_Comm_spawn from Fortran", "dynamic processes cannot be checkpointed"),
    "ompi_fortran_argv_count_f2c": ("MPI_Comm_spawn_multiple from Fortran", "dynamic processes cannot be checkpointed"),
    "ompi_fortran_multiple_argvs_f2c": ("MPI_Comm_spawn_multiple from Fortran", "dynamic processes cannot be checkpointed"),
    "MPII_Win_get_attr": ("MPI_Win_get_attr from Fortran", "one-sided communication is not supported yet"),
    "MPII_Win_set_attr": ("MPI_Win_set_attr from Fortran", "one-sided communication is not supported yet"),
    # Open MPI's predefined Fortran conversion callback: MPI_Register_datarep's default
    "mpi_conversion_fn_null_": ("MPI_Register_datarep from Fortran", "MPI-IO cannot be checkpointed yet"),
}


def defined_extra(sources, abi):
    """Other exported symbols the wrappers define for ABI, so its stub leaves them out: the predefined
    attribute callbacks (Open MPI's OMPI_C_MPI_*_FN, MPICH's MPIR_Dup_fn), constant pointers
    with their values (MPICH's MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY: `int *const NAME = ...`), and what the
    Fortran libraries need besides the C API (fortran.c: MANA_ABI definitions, FORTRAN_ALIAS).  A
    definition inside `#ifdef OPEN_MPI` (or its #else, or `#ifndef OPEN_MPI`) counts for that ABI only:
    both libraries export some of these names (MPI_F_STATUS_IGNORE), and each defines its own."""
    names = set()
    for src in sources:
        # one entry per open #if: True/False where it decides Open MPI against MPICH, None otherwise
        stack = []
        with open(src, encoding="utf-8") as f:
            for line in f:
                d = re.match(r"^\s*#\s*(ifdef|ifndef|if|else|elif|endif)\b\s*(\w*)", line)
                if d:
                    kw, arg = d.groups()
                    if kw in ("ifdef", "ifndef", "if"):
                        stack.append((kw == "ifdef") if arg == "OPEN_MPI" and kw != "if" else None)
                    elif kw in ("else", "elif") and stack and stack[-1] is not None:
                        stack[-1] = not stack[-1]
                    elif kw == "endif" and stack:
                        stack.pop()
                    continue
                if any(c is not None and c != (abi == "openmpi") for c in stack):
                    continue
                m = (re.match(r"^(?:int\s+|[A-Z_]+\()((?:OMPI_C_|MPIR_)\w+)", line)
                     or re.match(r"^int \*const (MPI_\w+) =", line)
                     or MANA_ABI_DEF.match(line) or FORTRAN_ALIAS.match(line))
                if m:
                    names.add(m.group(1))
    return names


def is_predef(abi, name):
    return abi == "openmpi" and (name.startswith("ompi_mpi_") or name in (
        "ompi_request_null", "ompi_message_null", "ompi_message_no_proc"))


def c_string(text):
    """TEXT as a C string literal (reasons may quote names)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def generate(api, entries, abi, sources):
    """(stub C text, version script text) for ABI."""
    lib = api.doc["abis"][abi]["lib"]
    have = {n for n, e in entries.items() if e.wrapped}
    have |= {"P" + n for n in have}
    have |= defined_extra(sources, abi)
    # The library is built with -fvisibility=hidden: the stub's definitions are API, so default.
    lines = ["/* Generated by core-native/src/mpi/api/gen_stub.py from %s: do not edit. */" % lib,
             "#include <stdint.h>",
             "#define ABI __attribute__((visibility(\"default\")))",
             "__attribute__((noreturn, visibility(\"hidden\"))) void mana_unsupported(const char *fn, const char *reason);",
             ""]
    predef = []
    exported = []             # the real library's names, in its order: the version script's globals
    for name, kind, size in api.symbols(abi):
        if name.startswith("_"):
            continue
        exported.append(name)
        if name in have:
            continue
        if kind == "F":
            cname = name[1:] if name.startswith(("PMPI_", "PMPIX_")) else name
            if C_NAME.match(name):
                why = entries[cname].reason if cname in entries else "not wrapped by this runtime yet"
            elif name in FORTRAN_ONLY:
                cname, why = FORTRAN_ONLY[name]
            elif re.match(r"^P?MPIX_", name):
                why = "MPI extensions (MPIX_) are not supported under checkpointing"
            else:
                why = "internal symbol of the MPI library"
            lines.append('ABI void %s(void) { mana_unsupported("%s", %s); }' % (name, cname, c_string(why)))
        else:
            lines.append("ABI char %s[%d] __attribute__((aligned(64)));" % (name, size))
            if is_predef(abi, name):
                predef.append(name)
    lines.append("")
    lines.append("const unsigned mana_predef_count = %d;" % len(predef))
    lines.append("const char *const mana_predef_names[] = { %s };" %
                 ", ".join(['"%s"' % n for n in predef] + ["0"]))
    lines.append("void *const mana_predef_addrs[] = { %s };" % ", ".join(predef + ["0"]))
    # Anonymous version (no version node): the real library's symbols are unversioned, and so must
    # ours be for a program linked against either to load against the other.
    vs = ["/* Generated by core-native/src/mpi/api/gen_stub.py from %s: do not edit.  The dynamic symbols" % lib,
          "   of the upper half's MPI library: the real library's, every one defined by a wrapper or the stub;",
          "   the rest local. */",
          "{", "  global:"]
    vs += ["    %s;" % n for n in exported]
    vs += ["  local:", "    *;", "};"]
    return "\n".join(lines) + "\n", "\n".join(vs) + "\n"
