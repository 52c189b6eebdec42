"""policy.py - the reviewed policy table (policy.tsv): what the runtime does with each MPI function.

Each row is `NAME <TAB> POLICY <TAB> DETAIL [<TAB> PARTIAL]`; `#` starts a comment line.
  NAME     an MPI_* name, or a family: a regular expression (it has one of `*+?|()[]`) matched
           against the whole name.  A name's own row wins over a family; otherwise exactly one
           family must match.
  POLICY   hand         a hand-written wrapper; DETAIL is the source file that defines PMPI_NAME
           pass         generated: translate the in-handles, one real call in the lower half
           coll         generated blocking collective: through the communicator's sequence gate
           icoll        generated nonblocking collective: a request of kind RQ_COLL
           fpass        generated MPI-IO call on one file: errors through the file's error handler
           fcoll        generated collective MPI-IO call: through the file's sequence gate
           fireq        generated nonblocking MPI-IO call: a request of kind RQ_FILE
           ficoll       generated nonblocking collective MPI-IO call: the file's gate and an RQ_FILE request
           wpass        generated one-sided call on one window (win.c): errors through the window's handler
           wireq        generated request-based one-sided call: a request of kind RQ_RMA
           unsupported  the stub ends the job; DETAIL is the reason the user reads
  DETAIL   file, reason, or `-`
  PARTIAL  for a wrapped function with a limit the user should know: the reason (status partial)

The checks (check()) fail the build naming the function: a function no row covers or two families
match, a row or family that matches nothing, a `hand` function its file does not define, a wrapper
defined in the sources whose row says otherwise, and a function and its `_c` twin with the same
status but different reasons.
"""
import os
import re

FILE_POLICIES = ("fpass", "fcoll", "fireq", "ficoll")
WIN_POLICIES = ("wpass", "wireq")
POLICIES = ("hand", "pass", "coll", "icoll") + FILE_POLICIES + WIN_POLICIES + ("unsupported",)
FAMILY = re.compile(r"[*+?|()\[\]]")
DEFINITION = re.compile(r"^[A-Za-z_][\w \*]*\bPMPI_(\w+)\s*\(")


class Row:
    def __init__(self, lineno, name, policy, detail, partial):
        self.lineno, self.name, self.policy, self.detail, self.partial = lineno, name, policy, detail, partial
        self.family = re.compile(name) if FAMILY.search(name) else None

    def matches(self, fn):
        return self.family.fullmatch(fn) is not None if self.family else self.name == fn


class Entry:
    """A function's resolved policy."""

    def __init__(self, name, row):
        self.name, self.row = name, row
        self.policy = row.policy
        self.file = row.detail if row.policy == "hand" else None
        if row.policy == "unsupported":
            self.status, self.reason = "unsupported", row.detail
        elif row.partial:
            self.status, self.reason = "partial", row.partial
        else:
            self.status, self.reason = "supported", None

    @property
    def wrapped(self):
        return self.policy != "unsupported"

    @property
    def generated(self):
        return self.policy in ("pass", "coll", "icoll") + FILE_POLICIES + WIN_POLICIES


def read(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = [c.strip() for c in line.split("\t") if c.strip() != ""]
            if len(cols) < 3 or len(cols) > 4 or cols[1] not in POLICIES:
                raise SystemExit("%s:%d: expected NAME<TAB>POLICY<TAB>DETAIL[<TAB>PARTIAL], POLICY one of %s"
                                 % (path, i, ", ".join(POLICIES)))
            rows.append(Row(i, cols[0], cols[1], cols[2], cols[3] if len(cols) == 4 else None))
    return rows


def resolve(rows, names, errors):
    """{name: Entry} for every name; problems appended to ERRORS."""
    exact = {}
    for r in rows:
        if not r.family:
            if r.name in exact:
                errors.append("policy.tsv:%d: %s has a second row (line %d)" % (r.lineno, r.name, exact[r.name].lineno))
            exact[r.name] = r
    families = [r for r in rows if r.family]
    used = set()
    out = {}
    for n in sorted(names):
        if n in exact:
            out[n] = Entry(n, exact[n])
            used.add(id(exact[n]))
            continue
        hits = [r for r in families if r.matches(n)]
        if not hits:
            errors.append("%s: no row of policy.tsv covers it" % n)
        elif len(hits) > 1:
            errors.append("%s: matched by several families of policy.tsv (lines %s)"
                          % (n, ", ".join(str(r.lineno) for r in hits)))
        else:
            out[n] = Entry(n, hits[0])
            used.add(id(hits[0]))
    for r in rows:
        if id(r) not in used:
            errors.append("policy.tsv:%d: %s matches no function either MPI exports" % (r.lineno, r.name))
    return out


def definitions(sources):
    """{MPI_X: [file basename...]} of the PMPI_X definitions (at the start of a line) in SOURCES."""
    defs = {}
    for src in sources:
        with open(src, encoding="utf-8") as f:
            for line in f:
                m = DEFINITION.match(line)
                if m:
                    defs.setdefault("MPI_" + m.group(1), []).append(os.path.basename(src))
    return defs


def check(entries, sources, errors):
    """The table against the wrapper sources and itself."""
    defs = definitions(sources)
    files = {os.path.basename(s) for s in sources}
    for n, e in sorted(entries.items()):
        where = defs.get(n, [])
        if e.policy == "hand":
            if e.file not in files:
                errors.append("%s: policy hand names %s, which is not a wrapper source" % (n, e.file))
            elif e.file not in where:
                errors.append("%s: policy hand, but %s does not define PMPI_%s(" % (n, e.file, n[4:]))
        elif where:
            errors.append("%s: defined in %s, but policy.tsv says %s" % (n, ", ".join(sorted(set(where))), e.policy))
        if e.row.partial and e.policy == "unsupported":
            errors.append("%s: unsupported and partial at once" % n)
    for n in sorted(set(defs) - set(entries)):
        errors.append("%s: defined in %s, but neither MPI exports it" % (n, ", ".join(defs[n])))
    for n, e in sorted(entries.items()):
        twin = entries.get(n + "_c")
        if twin and twin.status == e.status and e.status != "supported" and twin.reason != e.reason:
            errors.append("%s and %s: both %s with different reasons" % (n, twin.name, e.status))


def load(path, names, sources):
    """(entries, errors) for the functions NAMES against the table at PATH and the wrapper SOURCES."""
    errors = []
    entries = resolve(read(path), names, errors)
    check(entries, sources, errors)
    return entries, errors
