#!/usr/bin/env python3
"""api_test.py - unit tests of the MPI API description and the policy table (core-native/src/mpi/api).

  api_test.py SRC_MPI_DIR MPI_API_JSON

The parser and the roles on known signatures of both ABIs (read from the installed mpi.h), the
policy table against the built description and the hand-written sources, and the checks that must
fail the build (each on a small table of its own).
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

SRC = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
API_JSON = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
sys.path.insert(0, os.path.join(SRC or ".", "api"))

import cdecl         # noqa: E402
import describe      # noqa: E402
import gen_real      # noqa: E402
import gen_wrappers  # noqa: E402
import policy        # noqa: E402
import roles         # noqa: E402



def _wrapper_sources():
    """The hand-written wrapper sources, as the build lists them (src/mpi/api/wrapper_sources.txt, which
    src/mpi/CMakeLists.txt reads)."""
    with open(os.path.join(SRC, "api", "wrapper_sources.txt"), encoding="utf-8") as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]

PKG = {"openmpi": "ompi-c", "mpich": "mpich"}
_parsed = {}


def header(abi):
    """cdecl.parse of ABI's mpi.h, with roles."""
    if abi not in _parsed:
        flags = subprocess.run(["pkg-config", "--cflags", PKG[abi]], check=True, capture_output=True,
                               text=True).stdout.split()
        funcs = cdecl.parse(cdecl.preprocess(flags))
        for n, s in funcs.items():
            roles.annotate(n, s)
        _parsed[abi] = funcs
    return _parsed[abi]


def brief(sig):
    return [(p["name"], p["role"], p["dir"], p["ctype"], p.get("kind")) for p in sig["params"]]


class Roles(unittest.TestCase):
    def test_allgatherv_c_counts_and_displs(self):
        sig = header("mpich")["MPI_Allgatherv_c"]
        self.assertEqual(sig["ret"], "int")
        self.assertEqual(brief(sig), [
            ("sendbuf", "buffer", "in", "void", None),
            ("sendcount", "count", "in", "MPI_Count", None),
            ("sendtype", "handle", "in", "MPI_Datatype", "datatype"),
            ("recvbuf", "buffer", "out", "void", None),
            ("recvcounts", "count", "array_in", "MPI_Count", None),
            ("displs", "disp", "array_in", "MPI_Aint", None),
            ("recvtype", "handle", "in", "MPI_Datatype", "datatype"),
            ("comm", "handle", "in", "MPI_Comm", "comm")])
        self.assertEqual(sig["params"][4]["decl"], "const MPI_Count recvcounts[]")

    def test_allgatherv_int_counts_both_abis(self):
        for abi in ("openmpi", "mpich"):
            r = brief(header(abi)["MPI_Allgatherv"])
            self.assertEqual(r[4][1:4], ("count", "array_in", "int"), abi)
            self.assertEqual(r[5][1:4], ("disp", "array_in", "int"), abi)

    def test_comm_split_out_handle(self):
        for abi in ("openmpi", "mpich"):
            r = brief(header(abi)["MPI_Comm_split"])
            self.assertEqual(r[0][1:], ("handle", "in", "MPI_Comm", "comm"), abi)
            self.assertEqual(r[1][1:3], ("scalar", "in"), abi)
            self.assertEqual(r[3][1:], ("handle", "out", "MPI_Comm", "comm"), abi)

    def test_waitall_arrays(self):
        for abi in ("openmpi", "mpich"):
            r = brief(header(abi)["MPI_Waitall"])
            self.assertEqual(r[0][1:3], ("scalar", "in"), abi)          # a number of requests, not of elements
            self.assertEqual(r[1][1:], ("handle", "array_inout", "MPI_Request", "request"), abi)
            self.assertEqual(r[2][1:3], ("status", "array_out"), abi)

    def test_other_shapes(self):
        mp = header("mpich")
        self.assertEqual(brief(mp["MPI_Comm_free"])[0][2], "inout")
        self.assertEqual(brief(mp["MPI_Get_count_c"])[0][1:3], ("status", "in"))
        self.assertEqual(brief(mp["MPI_Get_count_c"])[2][1:4], ("count", "out", "MPI_Count"))
        self.assertEqual(brief(mp["MPI_Ibcast_c"])[-1][1:], ("handle", "out", "MPI_Request", "request"))
        self.assertEqual(brief(mp["MPI_Op_create"])[0][1], "callback")
        self.assertEqual(brief(mp["MPI_Type_create_struct"])[3][1:3], ("handle", "array_in"))
        self.assertEqual(brief(mp["MPI_Comm_get_name"])[1][1:3], ("string", "out"))
        self.assertEqual(mp["MPI_Wtime"], {"ret": "double", "params": []})
        om = header("openmpi")
        # a callback type behind a typedef chain (ompi_file_errhandler_fn)
        self.assertEqual(brief(om["MPI_File_create_errhandler"])[0][1], "callback")
        # removed in MPI-3, still exported: declared for the description
        self.assertIn("MPI_Address", om)


@unittest.skipUnless(API_JSON and os.path.exists(API_JSON or ""), "no built description")
class Table(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.api = describe.load(API_JSON)
        cls.sources = [os.path.join(SRC, w) for w in _wrapper_sources()]

    def test_description_exports(self):
        f = self.api.functions
        self.assertEqual(f["MPI_Bcast_c"]["exported"], ["mpich"])
        self.assertEqual(f["MPI_Send"]["exported"], ["openmpi", "mpich"])
        self.assertNotIn("MPI_Status_c2f08", f)          # MPICH's mpi.h declares it, its library does not export it
        self.assertNotIn("MPI_Comm_c2f", [n for n in f if "mpich" in f[n]["exported"] and n == "MPI_Comm_c2f"])

    def test_committed_table_is_consistent(self):
        entries, errors = policy.load(os.path.join(SRC, "api", "policy.tsv"), set(self.api.functions), self.sources)
        self.assertEqual(errors, [])
        self.assertEqual(entries["MPI_Bcast_c"].policy, "coll")
        self.assertEqual(entries["MPI_Init_thread"].status, "partial")
        self.assertEqual(entries["MPI_Put"].reason, entries["MPI_Put_c"].reason)
        for abi in ("openmpi", "mpich"):
            gen_wrappers.generate(self.api, entries, abi)     # every generated function can be generated
        real = gen_real.generate(self.api, entries, "mpich", self.sources)
        self.assertIn("X(Bcast_c)", real)
        self.assertIn("X(Test)", real)                       # a helper the hand code calls
        self.assertNotIn("X(Bcast_c)", gen_real.generate(self.api, entries, "openmpi", self.sources))

    def table(self, text, names, sources=None):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "policy.tsv")
            with open(p, "w") as f:
                f.write(text)
            srcs = []
            for name, body in (sources or {}).items():
                srcs.append(os.path.join(d, name))
                with open(srcs[-1], "w") as f:
                    f.write(body)
            return policy.load(p, set(names), srcs)

    def test_uncovered_and_stale(self):
        _, errors = self.table("MPI_A\tpass\t-\nMPI_Z\tpass\t-\n", ["MPI_A", "MPI_B"])
        self.assertIn("MPI_B: no row of policy.tsv covers it", errors)
        self.assertTrue(any("MPI_Z matches no function" in e for e in errors), errors)

    def test_two_families(self):
        _, errors = self.table("MPI_A.*\tunsupported\tx\nMPI_.*b\tunsupported\tx\n", ["MPI_Ab"])
        self.assertTrue(any("MPI_Ab: matched by several families" in e for e in errors), errors)

    def test_hand_not_defined_and_defined_but_not_hand(self):
        src = {"w.c": "int PMPI_B(int x)\n{ return x; }\n"}
        _, errors = self.table("MPI_A\thand\tw.c\nMPI_B\tpass\t-\n", ["MPI_A", "MPI_B"], src)
        self.assertIn("MPI_A: policy hand, but w.c does not define PMPI_A(", errors)
        self.assertIn("MPI_B: defined in w.c, but policy.tsv says pass", errors)

    def test_twin_reasons(self):
        _, errors = self.table("MPI_A\tunsupported\tone reason\nMPI_A_c\tunsupported\tanother\n", ["MPI_A", "MPI_A_c"])
        self.assertIn("MPI_A and MPI_A_c: both unsupported with different reasons", errors)

    def test_generator_refuses_what_needs_hand_work(self):
        entries, _ = self.table("MPI_Comm_split\tpass\t-\n", ["MPI_Comm_split"])
        with self.assertRaises(gen_wrappers.GenError) as cm:
            gen_wrappers.generate(self.api, entries, "mpich")
        self.assertIn("newcomm", str(cm.exception))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
