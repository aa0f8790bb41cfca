#!/usr/bin/env python3
"""Per-test results of CPython regrtest runs, for scripts/transparency.sh.

    regrtest_results.py parse OUT XML JSON
        reads one run's console output (regrtest -v) and its --junit-xml
        file, writes {"modules": {module: status}, "tests": {id: outcome}}
    regrtest_results.py diff PLAIN.json MODE.json
        one line per difference, tab-separated:
          test   MODULE  ID  PLAIN_OUTCOME  MODE_OUTCOME
          module MODULE  -   PLAIN_STATUS   MODE_STATUS
        tests that did not run because their module crashed or timed out
        in one mode are left out (the module's line and the test that was
        running when it ended say it); exits 0 either way
    regrtest_results.py outcome JSON ID
        the outcome of ID in one run (a rerun), or "missing"
    regrtest_results.py traces TRACE_DIR CHECK.json
        "PROCESSES TRACES ERRORS WARNINGS" of a traced run, then one line per
        code of warning or error finding: "COUNT SEVERITY CODE, e.g. MESSAGE"

Neither source is complete on its own, so both are read:
- --junit-xml has one <testcase> per test method with its outcome, but
  drops subtests, setUpClass errors and skips, and (3.12.1) tests skipped
  by decorator;
- the -v output has "name (id) ... outcome" lines, the "FAIL: name (id)"
  blocks of failures (subtests and class fixtures included), and
  regrtest's "[n/N] test_x STATUS" line per module; but a test's own
  output can land in the middle of a result line.
Outcomes: ok, skipped, fail, error, xfail, xpass, and "no result" for a
test that started and never finished (its process died or timed out).
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

# Worst first: when sources disagree (a subtest failed in a test that
# passed otherwise), the worse outcome stands.
RANK = ["error", "fail", "xpass", "no result", "skipped", "xfail", "ok"]

# "test_x (test.mod.Cls.test_x)" (3.11+) or "test_x (test.mod.Cls)" (before),
# maybe with a subtest's parameters " (i=1)" after it.
# Only test methods and class or module fixtures, with a dotted id: other
# "word (words)" in a test's output is not a result line.
HEAD = re.compile(r"\b(test\w*|setUpClass|tearDownClass|setUpModule|"
                  r"tearDownModule) \(([A-Za-z_][\w\[\]-]*(?:\.[\w\[\]-]+)+)\)"
                  r"(?: \([^)]*\))?")
OUTCOME = re.compile(
    r"(ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)\s*$")
# regrtest's line per module: "0:00:51 load avg: 2.74 [1/1] test_x passed".
MODULE = re.compile(r"^[\d:]+ (?:load avg: [\d.]+ )?\[\s*\d+/\d+(?:/\d+)?\] "
                    r"(test[\w.]*) (.*)$")
SUMMARY = re.compile(r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) "
                     r"\(([\w.\[\]-]+)\)")


def test_id(name, paren):
    """One id for a test, the same whatever version printed it."""
    if paren.endswith("." + name):
        return paren
    return paren + "." + name


def word(text):
    text = text.strip()
    if text.startswith("skipped"):
        return "skipped"
    return {"ok": "ok", "FAIL": "fail", "ERROR": "error",
            "expected failure": "xfail", "unexpected success": "xpass",
            "UNEXPECTED SUCCESS": "xpass"}[text]


def worse(a, b):
    if a is None:
        return b
    return a if RANK.index(a) <= RANK.index(b) else b


def module_status(text):
    """regrtest's status without the timings and counts that vary."""
    text = re.sub(r" -- running:.*$", "", text)
    text = re.sub(r"\s*\((?:\d+(?:\.\d+)? (?:min|sec|ms)|\d+ min \d+ sec|"
                  r"\d+ (?:errors?|failures?|tests?)[^)]*)\)", "", text)
    return text.strip()


def parse_output(path):
    modules, verbose, summary = {}, {}, {}
    pending = None  # the last test whose outcome is still to come
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = MODULE.match(line)
            if m:
                modules[m.group(1)] = module_status(m.group(2))
                pending = None
                continue
            m = SUMMARY.match(line)
            if m:
                tid = test_id(m.group(2), m.group(3))
                summary[tid] = worse(summary.get(tid), word(m.group(1)))
                continue
            heads = list(HEAD.finditer(line))
            for h in heads:
                tid = test_id(h.group(1), h.group(2))
                verbose.setdefault(tid, None)
                pending = tid
            tail = line[heads[-1].end():] if heads else line
            if " ... " in tail or not heads:
                tail = tail.rsplit(" ... ", 1)[-1]
                o = OUTCOME.match(tail.strip())
                if o and pending is not None:
                    verbose[pending] = worse(verbose[pending], word(o.group(1)))
                    pending = None
    return modules, verbose, summary


def parse_junit(path):
    tests = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return tests
    for tc in root.iter("testcase"):
        name = tc.get("name")
        if not name:
            continue  # 3.8-3.10: an entry for a subtest, without a name
        tags = {c.tag for c in tc}
        out = "ok"
        for tag, o in (("skipped", "skipped"), ("output", "xfail"),
                       ("failure", "fail"), ("error", "error")):
            if tag in tags:
                out = o
        tests[name] = worse(tests.get(name), out)
    return tests


def parse(out, xml, dest):
    modules, verbose, summary = parse_output(out)
    tests = {tid: (o if o is not None else "no result")
             for tid, o in verbose.items()}
    for tid, o in parse_junit(xml).items():
        # junit's outcome is the reliable one; -v may have lost a result in
        # the test's own output, and said "no result" for it.
        tests[tid] = o
    for tid, o in summary.items():
        tests[tid] = worse(tests.get(tid), o)
    with open(dest, "w") as f:
        json.dump({"modules": modules, "tests": tests}, f, indent=1,
                  sort_keys=True)


def module_of(tid, modules):
    best = ""
    for m in modules:
        if (tid.startswith(m + ".") or tid.startswith("test." + m + ".")) \
                and len(m) > len(best):
            best = m
    return best or tid.split(".")[1 if tid.startswith("test.") else 0]


def ended_early(status):
    return status is None or not status.startswith(
        ("passed", "failed", "skipped", "env changed", "resource denied"))


def diff(a_path, b_path):
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    mods = sorted(set(a["modules"]) | set(b["modules"]))
    for m in mods:
        sa, sb = a["modules"].get(m, "missing"), b["modules"].get(m, "missing")
        if sa != sb:
            print(f"module\t{m}\t-\t{sa}\t{sb}")
    for tid in sorted(set(a["tests"]) | set(b["tests"])):
        oa = a["tests"].get(tid, "missing")
        ob = b["tests"].get(tid, "missing")
        if oa == ob:
            continue
        m = module_of(tid, mods)
        # A module that ended early in one mode did not run its later tests:
        # its own line says so, not one line per test.
        if "missing" in (oa, ob):
            side = a if oa == "missing" else b
            if ended_early(side["modules"].get(m)):
                continue
        print(f"test\t{m}\t{tid}\t{oa}\t{ob}")


def outcome(path, tid):
    try:
        with open(path) as f:
            print(json.load(f)["tests"].get(tid, "missing"))
    except (OSError, ValueError):
        print("missing")


def traces(trace_dir, check_path):
    import os
    files = [n for n in os.listdir(trace_dir) if n.endswith(".dltrace")]
    try:
        with open(check_path) as f:
            check = json.load(f)
    except (OSError, ValueError):
        print(f"? {len(files)} ? ?")
        print("1 error - dltrace-analyze check gave no JSON")
        return
    pids = {p.get("pid") for p in check.get("processes", [])}
    s = check.get("summary", {})
    print(f"{len(pids)} {len(files)} {s.get('error', '?')} "
          f"{s.get('warning', '?')}")
    # One line per finding code: a suite that crashes processes on
    # purpose (test_faulthandler) has one CRASH per crash.
    seen = {}
    for f in check.get("findings", []):
        if f.get("severity") not in ("error", "warning"):
            continue
        key = (f["severity"], f.get("code", "?"))
        n, example = seen.get(key, (0, " ".join(f.get("message", "").split())))
        seen[key] = (n + 1, example)
    for (sev, code), (n, example) in sorted(seen.items()):
        print(f"{n} {sev} {code}, e.g. {example[:150]}")


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "parse" and len(argv) == 5:
        parse(*argv[2:])
    elif cmd == "diff" and len(argv) == 4:
        diff(*argv[2:])
    elif cmd == "outcome" and len(argv) == 4:
        outcome(*argv[2:])
    elif cmd == "traces" and len(argv) == 4:
        traces(*argv[2:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
