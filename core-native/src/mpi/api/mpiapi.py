#!/usr/bin/env python3
"""mpiapi.py - the MPI API description and everything the build generates from it.

  mpiapi.py describe --abi openmpi=LIB:PKG --abi mpich=LIB:PKG --out mpi-api.json
      The description (describe.py): every MPI_* function either library exports, with the
      signature each mpi.h declares (pkg-config PKG gives its flags) and each parameter's role.
  mpiapi.py generate --api mpi-api.json --policy policy.tsv --abi ABI
                     --wrappers OUT.c --real OUT.h --stub OUT.c --map OUT.map SOURCE.c...
      One ABI's generated wrappers, real-function table, stub and linker version script.
  mpiapi.py manifest --api mpi-api.json --policy policy.tsv --version V
                     --json OUT --md OUT --calls OUT SOURCE.c...
      The coverage manifest, its markdown rendering and the coverage gate's list of calls.
  mpiapi.py check --api mpi-api.json --policy policy.tsv SOURCE.c...
      The policy table against the description and the hand-written sources.
  mpiapi.py system --out DIR
      describe + manifest in one step, on this machine's Debian MPI libraries (DEFAULT_ABIS) with the
      sources wrapper_sources.txt lists: DIR/mpi-coverage.json as the build makes it, for the Java
      tests, which run before the runtime is built (mpi-diagnostics/pom.xml).

SOURCE.c are the hand-written wrapper sources.  Every command that reads the table checks it first
and stops, naming each problem, before writing anything.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import describe      # noqa: E402
import gen_manifest  # noqa: E402
import gen_real      # noqa: E402
import gen_stub      # noqa: E402
import gen_wrappers  # noqa: E402
import policy        # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
# as core-native/src/mpi/CMakeLists.txt's REAL_<mpi> and PKG_<mpi>
DEFAULT_ABIS = ("openmpi=/usr/lib/x86_64-linux-gnu/libmpi.so.40:ompi-c",
                "mpich=/usr/lib/x86_64-linux-gnu/libmpich.so.12:mpich")
VERSION = "0.2.0"


def wrapper_sources():
    """The hand-written sources wrapper_sources.txt names, as paths."""
    src = os.path.dirname(HERE)
    with open(os.path.join(HERE, "wrapper_sources.txt"), encoding="utf-8") as f:
        return [os.path.join(src, ln.strip()) for ln in f if ln.strip() and not ln.startswith("#")]


def load(args):
    api = describe.load(args.api)
    entries, errors = policy.load(args.policy, set(api.functions), args.sources)
    if errors:
        for e in errors:
            print("mpiapi: " + e, file=sys.stderr)
        sys.exit("mpiapi: %d problem(s) in %s" % (len(errors), args.policy))
    return api, entries


def write(path, text):
    """Write only when the content changes, so that make does not rebuild what did not change."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def cmd_describe(args):
    libs, cflags = {}, {}
    for spec in args.abi:
        abi, rest = spec.split("=", 1)
        lib, pkg = rest.rsplit(":", 1)
        libs[abi] = lib
        cflags[abi] = subprocess.run(["pkg-config", "--cflags", pkg], check=True, capture_output=True,
                                     text=True).stdout.split()
    describe.write(describe.build(libs, cflags), args.out)


def cmd_generate(args):
    api, entries = load(args)
    try:
        wrappers = gen_wrappers.generate(api, entries, args.abi)
    except gen_wrappers.GenError as e:
        sys.exit("mpiapi: cannot generate:\n" + str(e))
    stub, vmap = gen_stub.generate(api, entries, args.abi, args.sources)
    write(args.wrappers, wrappers)
    write(args.real, gen_real.generate(api, entries, args.abi, args.sources))
    write(args.stub, stub)
    write(args.map, vmap)


def cmd_manifest(args):
    api, entries = load(args)
    doc = gen_manifest.manifest(api, entries, args.version)
    gen_manifest.write_json(doc, args.json)
    write(args.md, gen_manifest.markdown(doc))
    gen_manifest.write_json(gen_manifest.calls(api, entries), args.calls)


def cmd_system(args):
    os.makedirs(args.out, exist_ok=True)
    api_json = os.path.join(args.out, "mpi-api.json")
    cmd_describe(argparse.Namespace(abi=list(DEFAULT_ABIS), out=api_json))
    cmd_manifest(argparse.Namespace(api=api_json, policy=os.path.join(HERE, "policy.tsv"),
                                    sources=wrapper_sources(), version=VERSION,
                                    json=os.path.join(args.out, "mpi-coverage.json"),
                                    md=os.path.join(args.out, "mpi-coverage.md"),
                                    calls=os.path.join(args.out, "mpi-calls.json")))


def main():
    ap = argparse.ArgumentParser(description="MPI API description and generated bindings")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("describe")
    d.add_argument("--abi", action="append", required=True)
    d.add_argument("--out", required=True)
    for name in ("generate", "manifest", "check"):
        p = sub.add_parser(name)
        p.add_argument("--api", required=True)
        p.add_argument("--policy", required=True)
        p.add_argument("sources", nargs="*")
        if name == "generate":
            for o in ("--abi", "--wrappers", "--real", "--stub", "--map"):
                p.add_argument(o, required=True)
        if name == "manifest":
            for o in ("--version", "--json", "--md", "--calls"):
                p.add_argument(o, required=True)
    sy = sub.add_parser("system")
    sy.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.cmd == "system":
        cmd_system(args)
    elif args.cmd == "describe":
        cmd_describe(args)
    elif args.cmd == "generate":
        cmd_generate(args)
    elif args.cmd == "manifest":
        cmd_manifest(args)
    else:
        load(args)


if __name__ == "__main__":
    main()
