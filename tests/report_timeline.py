#!/usr/bin/env python3
"""Checks the report's timeline as Chromium rendered it (its --dump-dom)
against what the analyzer says of the same traces (check --json).

    report_timeline.py DOM CHECK_JSON [--hang] [--straggler] [--crash]
                       [--threads N]

The timeline draws on a canvas; what it drew is in the DOM too: the
legend (#tl-legend, a child per state with data-state), the canvas's
data-rows, and the list #tl-rows with an entry per process (data-pid,
data-rank, data-states: its states in the order they came, data-last: the
last before it ended or died).  Checked: the legend has the five states
(running, waiting for a peer, sleeping, in a GPU call, dead); one row per
traced process of check, none unfolded (or, with --threads N, the page
opened with #threads=all: N rows, the processes and their threads); every
state drawn is one the legend explains.  --hang: some process was held
(waiting, blocked or sleeping).  --straggler: the rank JOB_HANG names
holds the others up in another state than theirs: each rank that waits
for peers ends waiting, and the straggler, which waits for no peer, does
not.  --crash: each process that check says crashed is dead on its row.
Other options (report_dom.py's) are ignored.  Exits 1 with one line per
problem."""
import json
import sys
from collections import Counter
from html.parser import HTMLParser

FIVE = ("running", "waiting", "sleeping", "gpu", "dead")
KNOWN = set(FIVE) | {"blocked"}
VOID = ("area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "param", "source", "track", "wbr")


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.legend = []   # data-state of the legend's entries
        self.rows = None   # the canvas's data-rows
        self.procs = []    # attributes of each entry of #tl-rows
        self.stack = []    # ids of the open elements that have one

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        inside = set(self.stack)
        if "tl-legend" in inside and "data-state" in a and \
                "tl-key" in (a.get("class") or "").split():
            self.legend.append(a["data-state"])
        if tag == "canvas" and a.get("id") == "tl":
            self.rows = a.get("data-rows")
        if tag == "li" and "tl-rows" in inside:
            self.procs.append(a)
        if tag not in VOID:
            self.stack.append(a.get("id"))

    def handle_endtag(self, tag):
        if tag not in VOID \
                and self.stack:
            self.stack.pop()


def states(p):
    return [s for s in (p.get("data-states") or "").split(",") if s]


def main():
    args = sys.argv[1:]
    dom_path, check_path = args[:2]
    d = Dom()
    with open(dom_path, encoding="utf-8") as f:
        d.feed(f.read())
    with open(check_path, encoding="utf-8") as f:
        check = json.load(f)
    bad = []

    missing = [s for s in FIVE if s not in d.legend]
    if missing:
        bad.append("legend lacks %s (has %s)" % (missing, d.legend))
    if len(set(d.legend)) != len(d.legend):
        bad.append("legend repeats a state: %s" % d.legend)

    # One row per process with a trace (a child known only from its
    # parent's reap has nothing to draw).
    traced = [p for p in check["processes"] if p.get("trace")]
    want = Counter(p["pid"] for p in traced)
    got = Counter(int(p["data-pid"]) for p in d.procs
                  if p.get("data-pid"))
    if want != got:
        bad.append("timeline lists %d processes, check has %d (missing "
                   "%s, extra %s)" % (sum(got.values()), sum(want.values()),
                                      sorted((want - got).keys())[:10],
                                      sorted((got - want).keys())[:10]))
    rows = int(d.rows) if d.rows and d.rows.isdigit() else -1
    if "--threads" in args:
        n = int(args[args.index("--threads") + 1])
        if rows != n:
            bad.append("canvas has %d rows with every thread unfolded, "
                       "expected %d" % (rows, n))
    elif rows != len(traced):
        bad.append("canvas has %d rows, check has %d processes"
                   % (rows, len(traced)))
    by_pid = {}
    for p in d.procs:
        st = states(p)
        if not st:
            bad.append("process %s has no state" % p.get("data-pid"))
        unknown = [s for s in st if s not in KNOWN or s not in d.legend]
        if unknown:
            bad.append("process %s: states %s not in the legend"
                       % (p.get("data-pid"), unknown))
        if p.get("data-pid"):
            by_pid[int(p["data-pid"])] = p

    if "--hang" in args and not any(
            set(states(p)) & {"waiting", "blocked", "sleeping"}
            for p in d.procs):
        bad.append("hang case: no process waits, blocks or sleeps")
    if "--straggler" in args:
        for f in check["findings"]:
            if f["code"] != "JOB_HANG":
                continue
            ev = f.get("evidence") or {}
            sp = (ev.get("straggler") or {}).get("pid")
            s = by_pid.get(sp)
            if s is None:
                bad.append("straggler pid %s has no row" % sp)
                continue
            for w in ev.get("waiting") or []:
                o = by_pid.get(w.get("pid"))
                if o is None:
                    bad.append("waiting rank pid %s has no row"
                               % w.get("pid"))
                    continue
                if w.get("state") == "waiting for peers" and \
                        o.get("data-last") != "waiting":
                    bad.append("rank %s (pid %s) waits for peers, its row "
                               "ends %r" % (w.get("rank"), w.get("pid"),
                                            o.get("data-last")))
                if o.get("data-last") == s.get("data-last"):
                    bad.append("straggler pid %s and waiting pid %s end in "
                               "the same state %r" % (sp, w.get("pid"),
                                                      s.get("data-last")))
            if (ev.get("straggler") or {}).get("state") != \
                    "waiting for peers" and s.get("data-last") == "waiting":
                bad.append("straggler pid %s waits for no peer, its row "
                           "ends waiting" % sp)
    if "--crash" in args:
        crashed = [f.get("pid") for f in check["findings"]
                   if f["code"] == "CRASH"]
        if not crashed:
            bad.append("crash case: check found no CRASH")
        for pid in crashed:
            p = by_pid.get(pid)
            if p is None or "dead" not in states(p):
                bad.append("crashed pid %s is not dead on its row (%s)"
                           % (pid, p and p.get("data-states")))
    for b in bad:
        print("report_timeline: %s: %s" % (dom_path, b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
