#!/usr/bin/env python3
"""After `make test`: where the time went and, on a failure, every failed test with its first lines.

CI keeps only the tail of a run's output, and Maven ends a failure with a page of advice that pushes the
failing test's name out of it. This prints, compactly and last: the ctest total and its slowest cases,
each Java module's test time, then what failed, from the JUnit/Tycho reports under */target/
surefire-reports and ctest's last run (core-native/build/Testing/Temporary). It reads files only and
always exits 0 (the caller keeps the build's status). Reports left by earlier runs are read too: on a
machine that is not a fresh clone, run it after a full `make test` only.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MAX_LINES = 12          # lines of each failure's message and trace
# A failed ctest case's output ends with its harness's epilogue (coordinator log, launcher noise); the
# lines that say why it failed usually come earlier.  These are shown first, then the tail.
KEY = re.compile(r'FAIL|[Ee]rror|ERROR|differ|mismatch|wrong|abort|Abort|signal|Segmentation|timed out|'
                 r'[Hh]ung|refused|[Cc]annot|[Ff]ailed|exited with|core dumped|Assertion')
MAX_KEY = 10            # key lines of a failed ctest case shown before its tail


def brief(trace):
    """A failure's message lines and the first frames in our own code, without the framework's frames."""
    out, ours = [], 0
    for line in trace.strip().splitlines():
        frame = line.strip().startswith("at ")
        if not frame and line.strip():
            out.append(line.rstrip())
        elif frame and "dev.mana." in line and ours < 2:
            out.append(line.rstrip())
            ours += 1
    return out[:MAX_LINES]


def junit_failures():
    for report in sorted(glob.glob(os.path.join(ROOT, "**/target/surefire-reports/TEST-*.xml"), recursive=True)):
        try:
            suite = ET.parse(report).getroot()
        except ET.ParseError as e:
            yield f"{os.path.relpath(report, ROOT)}: unreadable report ({e})", []
            continue
        for case in suite.iter("testcase"):
            for kind in ("failure", "error"):
                for bad in case.findall(kind):
                    lines = brief(bad.text or bad.get("message") or "")
                    name = f"{case.get('classname')}.{case.get('name')} ({kind}, {case.get('time')} s)"
                    yield name, lines


def ctest_failures():
    tmp = os.path.join(ROOT, "core-native/build/Testing/Temporary")
    failed = os.path.join(tmp, "LastTestsFailed.log")
    if not os.path.exists(failed):
        return
    with open(failed, errors="replace") as f:
        names = [l.strip().split(":", 1)[-1] for l in f if l.strip()]
    log = ""
    if os.path.exists(os.path.join(tmp, "LastTest.log")):
        with open(os.path.join(tmp, "LastTest.log"), errors="replace") as f:
            log = f.read()
    for name in names:
        # LastTest.log holds each test's output between its header and "Test time"; keep its end
        m = re.search(r'Test: ' + re.escape(name) + r'\n.*?\n----------------------------------------------------------\n(.*?)<end of output>',
                      log, re.S)
        lines = m.group(1).strip().splitlines() if m else []
        tail = lines[-MAX_LINES:]
        head = lines[:-MAX_LINES]
        key = [l for l in head if KEY.search(l)]
        if len(key) > MAX_KEY:
            key = key[:MAX_KEY // 2] + ["[...]"] + key[-MAX_KEY // 2:]
        yield f"ctest {name}", key + (["[... tail:]"] if key else []) + tail


def ctest_times():
    path = os.path.join(ROOT, "core-native/build/Testing/Temporary/LastTest.log")
    if not os.path.exists(path):
        return []
    with open(path, errors="replace") as f:
        log = f.read()
    return [(float(t), n) for n, t in re.findall(r'^\d+/\d+ Test: (\S+)\n.*?^Test time = +([0-9.]+) sec', log, re.S | re.M)]


def junit_times():
    totals = {}
    for report in glob.glob(os.path.join(ROOT, "**/target/surefire-reports/TEST-*.xml"), recursive=True):
        module = os.path.relpath(report, ROOT).split("/target/")[0]
        try:
            totals[module] = totals.get(module, 0.0) + float(ET.parse(report).getroot().get("time") or 0)
        except (ET.ParseError, ValueError):
            pass
    return sorted(((t, m) for m, t in totals.items()), reverse=True)


def main():
    print("=" * 72)
    times = ctest_times()
    if times:
        slow = ", ".join(f"{n} {t:.0f}" for t, n in sorted(times, reverse=True)[:8])
        print(f"ctest: {len(times)} cases, {sum(t for t, _ in times):.0f} s; slowest: {slow}")
    jt = junit_times()
    if jt:
        print("JUnit: " + ", ".join(f"{m} {t:.0f}" for t, m in jt) + " (s)")
    found = list(junit_failures()) + list(ctest_failures())
    if not found and len(sys.argv) > 1 and sys.argv[1] == "--failed":
        print("test_report: no failed test in the reports (the build itself failed: see above)")
    for name, lines in found:
        print(f"FAILED {name}")
        for l in lines:
            print(f"    {l[:200]}")
    print("=" * 72)
    return 0


if __name__ == "__main__":
    sys.exit(main())
