"""describe.py - the machine-readable description of the MPI API (mpi-api.json), and its loader.

  {"format": "mana-mpi-api", "version": 1,
   "abis": {"openmpi": {"lib", "cflags", "symbols": [[name, "F"|"D", size]...]}, "mpich": {...}},
   "functions": [{"name": "MPI_Bcast", "exported": ["openmpi", "mpich"], "declared": [...],
                  "sig": {"openmpi": {"ret": "int", "params": [param...]}, "mpich": {...}}}, ...]}

A function is listed when either library exports it (MPI_X or PMPI_X).  `exported` names the ABIs
whose library does; `sig` holds the signature each ABI's mpi.h declares (PMPI_X has the same), with
the roles of roles.py.  A function mpi.h declares but the library does not export is not listed.
"""
import json

import cdecl
import exports
import roles

ABIS = ("openmpi", "mpich")


def build(libs, cflags):
    """The description from {abi: library path} and {abi: [cflags]} (pkg-config's)."""
    doc = {"format": "mana-mpi-api", "version": 1, "abis": {}, "functions": []}
    decl = {}
    exported = {}
    for abi in ABIS:
        if abi not in libs:
            continue
        syms = exports.symbols(libs[abi])
        doc["abis"][abi] = {"lib": libs[abi], "cflags": cflags[abi], "symbols": [list(s) for s in syms]}
        exported[abi] = exports.mpi_functions(syms)
        decl[abi] = cdecl.parse(cdecl.preprocess(cflags[abi]))
    names = set().union(*exported.values())
    for name in sorted(names):
        e = {"name": name, "exported": [a for a in ABIS if name in exported.get(a, ())],
             "declared": [a for a in ABIS if name in decl.get(a, {})], "sig": {}}
        for abi in e["declared"]:
            e["sig"][abi] = roles.annotate(name, decl[abi][name])
        doc["functions"].append(e)
    return doc


def write(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")


class Api:
    """A loaded description: functions by name, and each ABI's symbols."""

    def __init__(self, doc):
        if doc.get("format") != "mana-mpi-api":
            raise ValueError("not an MPI API description")
        self.doc = doc
        self.abis = list(doc["abis"])
        self.functions = {f["name"]: f for f in doc["functions"]}

    def sig(self, name, abi):
        """The signature ABI declares for NAME, or None."""
        return self.functions[name]["sig"].get(abi)

    def exported(self, name, abi):
        f = self.functions.get(name)
        return bool(f) and abi in f["exported"]

    def symbols(self, abi):
        return [tuple(s) for s in self.doc["abis"][abi]["symbols"]]


def load(path):
    with open(path, encoding="utf-8") as f:
        return Api(json.load(f))
