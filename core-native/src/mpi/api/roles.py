"""roles.py - what each parameter of an MPI function is, from its C type, its name and the function.

A role is {"role", "dir", "ctype"} added to a parameter (cdecl.py's shape):
  role   handle (with "kind": comm, datatype, op, group, info, errhandler, request, message, win,
         file, session, or tool for MPI_T_*), count, disp, buffer, status, string, callback,
         pointer (an untyped pointer that is not message data: attribute values, extra state),
         scalar (everything else: ints, flags, ranks, tags, sizes, Fortran handles)
  dir    in, out, inout, array_in, array_out, array_inout
  ctype  the element's C type (int, MPI_Count, MPI_Aint, MPI_Comm...)
The types say most of it; names say which int is an element count and which pointer is written.
"""
import re

HANDLE_KINDS = {
    "MPI_Comm": "comm", "MPI_Datatype": "datatype", "MPI_Op": "op", "MPI_Group": "group",
    "MPI_Info": "info", "MPI_Errhandler": "errhandler", "MPI_Request": "request",
    "MPI_Message": "message", "MPI_Win": "win", "MPI_File": "file", "MPI_Session": "session",
}

# A handle passed by pointer is written (a constructor's result) unless the call consumes or
# updates the object: frees, commits, completions, cancels, starts, and the message a receive takes.
INOUT_HANDLE_FN = re.compile(r"_free$|^MPI_Type_commit$|^MPI_(Wait|Test|Cancel|Start|Request_free)$"
                             r"|^MPI_Comm_disconnect$|^MPI_File_close$|^MPI_Session_finalize$"
                             r"|^MPI_(Mrecv|Imrecv)(_c)?$|^MPI_Grequest_complete$")
# Arrays of requests the call completes or starts: it reads them and writes MPI_REQUEST_NULL back.
INOUT_REQ_ARRAY_FN = re.compile(r"^MPI_(Wait|Test)(all|any|some)$|^MPI_Startall$")
# Element counts: the number of items of a datatype (not the number of requests, ranks, dims...).
COUNT_NAME = re.compile(r"^(count|sendcounts?|recvcounts?|origin_count|target_count|result_count|"
                        r"target_cout|incount|outcount|inbuf_count|max_count|blocklength|array_of_blocklengths|"
                        r"array_of_block_lengths)$")  # target_cout: Open MPI 4.1's MPI_Rput
DISP_NAME = re.compile(r"displs$|^array_of_displacements$|^target_disp$|^displacements?$|^disp$|^stride$")
POINTER_NAME = re.compile(r"attr|extra_state|^state$|^baseptr$|^base$|^attribute_val")
# Scalars a call both reads and writes.
INOUT_SCALAR = re.compile(r"^position$|^argc$|^argv$|^dims$|^outcount$|^flag_inout$")


def _has_datatype(params):
    return any(p["base"] == "MPI_Datatype" for p in params)


def role_of(fn, p, params):
    """The role dict of parameter P of function FN (params: all of FN's, for context)."""
    base, const, ptr, arr, name = p["base"], p["const"], p["ptr"], p["arr"], p["name"]
    ind = ptr + arr
    is_array = arr > 0 or name.startswith("array_of_") or (name.endswith("s") and ptr == 1 and
                                                            (DISP_NAME.search(name) or COUNT_NAME.match(name)))
    if p.get("callback"):
        return {"role": "callback", "dir": "in", "ctype": base}
    if base == "...":
        return {"role": "scalar", "dir": "in", "ctype": "..."}
    if base in HANDLE_KINDS or base.startswith("MPI_T_") and base.endswith(("_handle", "enum")):
        kind = HANDLE_KINDS.get(base, "tool")
        if ind == 0:
            d = "in"
        elif is_array:
            if const:
                d = "array_in"
            elif kind == "request" and INOUT_REQ_ARRAY_FN.match(fn):
                d = "array_inout"
            else:
                d = "array_out"
        else:
            d = "inout" if INOUT_HANDLE_FN.search(fn) else "out"
        return {"role": "handle", "kind": kind, "dir": d, "ctype": base}
    if base == "MPI_Status":
        if is_array or name.startswith("array_of"):
            d = "array_out"
        elif const:
            d = "in"
        elif re.match(r"^MPI_Status_set_", fn):
            d = "inout"
        else:
            d = "out"
        return {"role": "status", "dir": d, "ctype": base}
    if base == "void" and ind == 1 and not POINTER_NAME.search(name):
        d = "in" if const else ("inout" if re.match(r"^MPI_I?bcast", fn, re.I) or "inout" in name else "out")
        return {"role": "buffer", "dir": d, "ctype": "void"}
    if base == "void":
        # extra state and the value an attribute is set to are given; Attr_get/Alloc_mem write theirs
        given = const or (ind == 1 and ("extra_state" in name or re.search(r"_(set|put)_?attr|Attr_put", fn)))
        return {"role": "pointer", "dir": "in" if given else "out", "ctype": "void"}
    if base == "char":
        if ind == 1:
            return {"role": "string", "dir": "in" if const else "out", "ctype": "char"}
        if ind == 2 and (arr or name.startswith("array_of") or name == "argv"):
            return {"role": "string", "dir": "array_in", "ctype": "char"}
        return {"role": "pointer", "dir": "inout", "ctype": "char"}
    if base in ("int", "MPI_Count", "MPI_Aint", "MPI_Offset") and _has_datatype(params):
        if COUNT_NAME.match(name) and base in ("int", "MPI_Count"):
            return {"role": "count", "dir": _scalar_dir(ind, is_array, const, name), "ctype": base}
        if DISP_NAME.search(name):
            return {"role": "disp", "dir": _scalar_dir(ind, is_array, const, name), "ctype": base}
    return {"role": "scalar", "dir": _scalar_dir(ind, is_array, const, name), "ctype": base}


def _scalar_dir(ind, is_array, const, name):
    if ind == 0:
        return "in"
    if is_array or ind > 1:
        return "array_in" if const else ("array_inout" if INOUT_SCALAR.match(name) else "array_out")
    if const:
        return "in"
    return "inout" if INOUT_SCALAR.match(name) else "out"


def annotate(fn, sig):
    """Add the role fields to every parameter of SIG (cdecl.parse's entry for FN), in place."""
    for p in sig["params"]:
        p.update(role_of(fn, p, sig["params"]))
    return sig
