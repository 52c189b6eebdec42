"""cdecl.py - the MPI functions an mpi.h declares, read with a real C parser (pycparser).

The header is preprocessed by gcc (with the system's own headers) and the GNU extensions pycparser
does not know are defined away; every `MPI_*` function declaration then gives its return type and
its parameters, each as the header wrote it (name, declaration text) and as a shape the role rules
read (base type, const, pointer depth, array depth).  Open MPI's MPI-1 functions that MPI-3 removed
are declared too (OMPI_OMIT_MPI1_COMPAT_DECLS=0): its library still exports them.
"""
import re
import subprocess

from pycparser import c_ast, c_generator, c_parser

C_NAME = re.compile(r"^MPI_[A-Z][a-z0-9_]*$")

# GNU C that pycparser cannot parse; none of it changes a function's C signature.
GNU_DEFINES = ["-D__attribute__(x)=", "-D__extension__=", "-D__asm__(x)=", "-D__asm(x)=", "-D__restrict=",
               "-D__restrict__=", "-D__inline=", "-D__inline__=", "-D__builtin_va_list=char *",
               "-D_Noreturn=", "-D__THROW=", "-DOMPI_OMIT_MPI1_COMPAT_DECLS=0"]


def preprocess(cflags, cc="gcc"):
    """The text of `#include <mpi.h>` after gcc -E with CFLAGS (a list), without line markers."""
    cmd = [cc, "-E", "-P", "-std=gnu11", "-x", "c", "-"] + GNU_DEFINES + list(cflags)
    return subprocess.run(cmd, input="#include <mpi.h>\n", check=True, capture_output=True, text=True).stdout


def _shape(t):
    """(base, const, ptr, arr, funcptr) of a parameter's type node."""
    ptr = arr = 0
    const = False
    while True:
        if isinstance(t, c_ast.PtrDecl):
            ptr += 1
            t = t.type
        elif isinstance(t, c_ast.ArrayDecl):
            arr += 1
            t = t.type
        elif isinstance(t, c_ast.FuncDecl):
            return ("(function)", const, ptr, arr, True)
        elif isinstance(t, c_ast.TypeDecl):
            const = const or "const" in t.quals
            inner = t.type
            if isinstance(inner, c_ast.IdentifierType):
                return (" ".join(inner.names), const, ptr, arr, False)
            return (getattr(inner, "name", "?") or "?", const, ptr, arr, False)
        else:
            return ("?", const, ptr, arr, False)


def _function_typedefs(ast):
    """Names of typedefs that are function types or pointers to them (the callback types)."""
    names = set()
    for e in ast.ext:                   # typedefs come before their users: one pass follows chains
        if isinstance(e, c_ast.Typedef):
            t = e.type
            while isinstance(t, c_ast.PtrDecl):
                t = t.type
            if isinstance(t, c_ast.FuncDecl) or (isinstance(t, c_ast.TypeDecl) and
                                                 isinstance(t.type, c_ast.IdentifierType) and
                                                 " ".join(t.type.names) in names):
                names.add(e.name)
    return names


def parse(text):
    """{name: {"ret": C type, "params": [param]}} of the MPI_* functions declared in TEXT.

    A param is {"name", "decl" (as declared), "type" (the declaration without its name),
    "base", "const", "ptr", "arr", "callback"}."""
    ast = c_parser.CParser().parse(text, "mpi.h")
    gen = c_generator.CGenerator()
    callbacks = _function_typedefs(ast)
    funcs = {}
    for e in ast.ext:
        if not (isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl) and C_NAME.match(e.name or "")):
            continue
        fd = e.type
        params = []
        for i, p in enumerate(fd.args.params if fd.args else []):
            if isinstance(p, c_ast.EllipsisParam):
                params.append({"name": "...", "decl": "...", "type": "...", "base": "...", "const": False,
                               "ptr": 0, "arr": 0, "callback": False})
                continue
            base, const, ptr, arr, fptr = _shape(p.type)
            if base == "void" and ptr == 0 and arr == 0:
                continue                                    # f(void)
            name = p.name or "a%d" % i
            if p.name is None:
                p = c_ast.Decl(name, [], [], [], [], _rename(p.type, name), None, None)
            decl = gen.visit(p)
            params.append({"name": name, "decl": decl, "type": _drop_name(decl, name), "base": base,
                           "const": const, "ptr": ptr, "arr": arr,
                           "callback": fptr or (base in callbacks and ptr >= 1)})
        funcs[e.name] = {"ret": gen.visit(fd.type), "params": params}
    return funcs


def _rename(t, name):
    """Give an unnamed parameter's innermost TypeDecl a name (for the declaration text)."""
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = name
    return t


def _drop_name(decl, name):
    """'const int recvcounts[]' -> 'const int []'; 'MPI_Comm *newcomm' -> 'MPI_Comm *'."""
    return re.sub(r"\s*\b%s\b" % re.escape(name), "", decl, count=1).strip() if name else decl
