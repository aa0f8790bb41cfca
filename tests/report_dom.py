#!/usr/bin/env python3
"""Checks a report as Chromium rendered it (its --dump-dom, taken from a
copy of the page with tests/report_probe.js inside) against what the
analyzer says of the same traces (check --json).

    report_dom.py DOM CHECK_JSON CONSOLE_LOG [--libs TEXT] [--hang]
                  [--straggler] [--crash] [--diff DIFF_JSON]

Exits 1 with one line per mismatch.  The page must have rendered without
an error, have made no request (its Content-Security-Policy blocks every
one, and the page counts the violations), show every finding of check
with its code and severity, and every process in its tree.  What a person
sees is read from the probe: the first screen (the top 900 px at 1280 px
wide) holds each error's headline, for a hang the picture of who waits
for whom with the straggler's rank and Python line, for a death the tree
down to the dead; no visible text is a raw count of nanoseconds or a
field name ending in _ns; the libraries are folded; the timeline has its legend (#tl-legend, at
least the five states of the issue)."""
import json
import os
import re
import sys
from collections import Counter
from html.parser import HTMLParser

DEATHS = ("CRASH", "OOM_KILL", "SIGKILL", "SIGNAL_SENT")
HANG = re.compile(r"HANG|RANK|STALL|STRAGGLER|COLLECTIVE|WAIT")


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = {}
        self.probe = None
        self.findings = []   # (code, severity, section, count, first screen)
        self.tree_pids = []
        self.hang_rows = []  # pid of each row of the hang table
        self.hang_refs = []  # codes the hangs section links to
        self.diff_keys = []  # data-key of each row of "What changed"
        self.deaths = []     # data-death of the tree's entries
        self.dead = []       # (pid, code, first screen) of the verdict's tree
        self.pictures = []   # attributes of each svg.ranks
        self.boxes = []      # [pid, straggler, first screen, text] of its
        self.in_box = False  # boxes
        self.in_title = False
        self.links = []      # (from, to) of its arrows
        self.lib_rows = []   # text of each library row
        self.lib_summary = False
        self.section = None
        self.in_lib = 0
        self.lib_text = []
        self.hang_text = []
        self.urls = []
        self.csp = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        fs = a.get("data-fs") == "1"
        if tag == "body":
            self.body = a
        if a.get("id") == "dlt-probe":
            self.probe = a
        if tag == "meta" and a.get("http-equiv", "").lower() == \
                "content-security-policy":
            self.csp = a.get("content")
        if tag == "section":
            self.section = a.get("id")
        for k in ("src", "href"):
            v = a.get(k, "")
            if v and not v.startswith("#") and not v.startswith("blob:"):
                self.urls.append(v)
        if "data-death" in a and self.section == "job":
            self.deaths.append(a["data-death"])
        if "data-dead" in a and self.section == "verdict":
            self.dead.append((int(a["data-pid"]), a["data-dead"], fs))
        if "data-code" in a and tag == "details":
            self.findings.append((a["data-code"], a.get("data-severity"),
                                  self.section,
                                  int(a.get("data-count", "1")), fs))
        if tag == "svg" and "ranks" in a.get("class", "").split():
            self.pictures.append(a)
        if tag == "title":
            self.in_title = True
        if tag == "g" and "node" in a.get("class", "").split():
            self.boxes.append([a.get("data-pid"),
                               a.get("data-straggler") == "1", fs, ""])
            self.in_box = True
        if tag == "path" and "link" in a.get("class", "").split():
            self.links.append((a.get("data-from"), a.get("data-to")))
        if tag == "a" and self.section == "hangs" and "data-ref" in a:
            self.hang_refs.append(a["data-ref"])
        if tag == "tr" and self.section == "changes" and "data-key" in a:
            self.diff_keys.append(a["data-key"])
        if tag == "tr" and self.section == "hangs" and "data-pid" in a:
            self.hang_rows.append(int(a["data-pid"]))
        if tag == "li" and self.section == "job" and "data-pid" in a:
            self.tree_pids.append(int(a["data-pid"]))
        if a.get("id") == "lib-summary":
            self.lib_summary = True
        if tag == "tr" and "data-path" in a:
            self.in_lib = 1
            self.lib_text = []
        elif tag == "tr" and self.in_lib:
            self.in_lib = 0

    def handle_endtag(self, tag):
        if tag == "g":
            self.in_box = False
        if tag == "title":
            self.in_title = False
        if tag == "tr" and self.in_lib:
            self.lib_rows.append("".join(self.lib_text))
            self.in_lib = 0
        if tag == "section":
            self.section = None

    def handle_data(self, data):
        # What the box shows, not its tooltip.
        if self.in_box and not self.in_title:
            self.boxes[-1][3] += data + "\n"
        if self.in_lib:
            self.lib_text.append(data)
        if self.section == "hangs":
            self.hang_text.append(data)


def prose(s):
    """A message as the page shows it: frames in prose as "function
    (library)", without the offset (report.js's prose())."""
    s = re.sub(r"\b([A-Za-z_][\w.+-]*)!([^\s;,!]+?)\+0x[0-9a-fA-F]+",
               r"\2 (\1)", s or "")
    return re.sub(r"\b([A-Za-z_][\w.+-]*\.so[\w.]*)!([^\s;,!()]+)",
                  r"\2 (\1)", s)


# A count of nanoseconds or a time in them (10 digits or more, not part
# of a hexadecimal number or an address), "123 ns", or a field name.
RAW = re.compile(r"(?<![0-9A-Fa-fxX.])\d{10,}(?![0-9A-Fa-f])|\b\d+ ns\b|"
                 r"\b\w+_ns\b")


def main():
    args = sys.argv[1:]
    dom_path, check_path, log_path = args[:3]
    libs = None
    if "--libs" in args:
        libs = args[args.index("--libs") + 1]
    d = Dom()
    with open(dom_path, encoding="utf-8") as f:
        d.feed(f.read())
    with open(check_path, encoding="utf-8") as f:
        check = json.load(f)
    bad = []
    if d.body.get("data-rendered") != "1":
        bad.append("the page did not finish drawing")
    if d.body.get("data-errors") != "0":
        bad.append("script errors: %s" % d.body.get("data-errors"))
    if d.body.get("data-csp-violations") != "0":
        bad.append("requests the page tried (blocked by its policy): %s"
                   % d.body.get("data-csp-violations"))
    if not d.csp or "default-src 'none'" not in d.csp:
        bad.append("no Content-Security-Policy that forbids requests")
    if d.urls:
        bad.append("addresses in the page: %s" % d.urls[:5])
    with open(log_path, encoding="utf-8", errors="replace") as f:
        console = [l for l in f if ":CONSOLE" in l]
    if console:
        bad.append("console messages: %s" % console[:3])
    probe = d.probe
    if probe is None:
        bad.append("the probe (report_probe.js) did not run")
        probe = {}
    first = probe.get("data-first-screen", "")
    findings = check["findings"]

    # Every finding once, in blocks of the same thing said of several
    # processes (data-count).
    want = Counter((f["code"], f["severity"]) for f in findings)
    got = Counter()
    for c, s, sec, n, _ in d.findings:
        if sec == "verdict":
            got[(c, s)] += n
    if want != got:
        bad.append("findings differ from check --json: page %s, check %s"
                   % (sorted(got.items()), sorted(want.items())))
    pids = Counter(p["pid"] for p in check["processes"])
    tree = Counter(d.tree_pids)
    if libs is None and pids != tree:
        bad.append("process tree: %d entries, check has %d processes "
                   "(missing %s)" % (sum(tree.values()), sum(pids.values()),
                                     sorted((pids - tree).keys())[:10]))
    # How each process died is said in the tree, by the finding that says
    # it (a crash with its site, an OOM kill, a SIGKILL, a signal sent).
    died = {}
    for f in findings:
        if f["code"] in DEATHS and f.get("trace"):
            died.setdefault(f["trace"], f["code"])
    if libs is None and sorted(died.values()) != sorted(d.deaths):
        bad.append("deaths in the tree %s, check says %s"
                   % (sorted(d.deaths), sorted(died.values())))
    if "--crash" in args and "CRASH" not in d.deaths:
        bad.append("the crash case shows no CRASH in the tree")

    if libs is None:
        # The first screen is the answer: each error's headline...
        for f in findings:
            if f["severity"] == "error" and prose(f["message"]) not in first:
                bad.append("first screen lacks the headline: %s"
                           % f["message"])
        low = [c for c, s, sec, n, fs in d.findings
               if sec == "verdict" and s == "error" and not fs]
        if low:
            bad.append("error blocks below the first screen: %s" % low)
        # ... each death, in the tree down to the dead ...
        dead = {p for p, c, fs in d.dead if fs}
        for f in findings:
            if f["code"] in DEATHS and f["severity"] != "info" and \
                    f.get("pid") and f["pid"] not in dead:
                bad.append("the first screen's tree does not mark pid %s "
                           "(%s) dead" % (f["pid"], f["code"]))
        # ... and for a hang, the picture: the straggler's rank and
        # Python line, one arrow per pair of processes, none back from
        # the straggler, no arrow over a text.
        for f in findings:
            st = (f.get("evidence") or {}).get("straggler")
            if f["severity"] == "info" or not isinstance(st, dict):
                continue
            if not any(p.get("data-fs") == "1" and
                       p.get("data-code") == f["code"] for p in d.pictures):
                bad.append("no picture of %s on the first screen"
                           % f["code"])
            if st.get("rank") is not None and st["rank"] >= 0 and \
                    ("rank %d" % st["rank"]) not in first:
                bad.append("first screen lacks the straggler's rank %d"
                           % st["rank"])
            at = (st.get("python_at") or "").split(" in ")[0]
            if at and at not in first:
                bad.append("first screen lacks the straggler's line %s" % at)
            box = [b for b in d.boxes if b[0] == str(st.get("pid")) and
                   b[1] and b[2]]
            if not box:
                bad.append("the picture does not mark pid %s as the "
                           "straggler" % st.get("pid"))
            elif (at and at not in box[0][3]) or \
                    (st.get("rank") is not None and st["rank"] >= 0 and
                     ("rank %d " % st["rank"]) not in box[0][3]):
                bad.append("the straggler's box lacks its rank or line: %r"
                           % box[0][3])
            if any(a == str(st.get("pid")) for a, b in d.links):
                bad.append("an arrow from the straggler pid %s"
                           % st.get("pid"))
        if len(set(d.links)) != len(d.links):
            bad.append("arrows drawn twice: %s" % d.links)
        for p in d.pictures:
            if p.get("data-probe-overlaps") != "0" or \
                    p.get("data-probe-overflow") != "0":
                bad.append("picture %s: %s arrow(s) over a text, %s text(s) "
                           "out of their box"
                           % (p.get("id"), p.get("data-probe-overlaps"),
                              p.get("data-probe-overflow")))

    # Values for people: no raw nanoseconds nor their field names.
    for what in ("data-inner-text", "data-visible"):
        raw = RAW.findall(probe.get(what, ""))
        if raw:
            bad.append("raw values in what is shown (%s): %s"
                       % (what, sorted(set(raw))[:8]))

    # Hangs: the table, and a link to each hang finding of the verdict
    # rather than the block again.
    for f in findings:
        if HANG.search(f["code"]) and f["code"] not in d.hang_refs:
            bad.append("hangs section does not link to %s" % f["code"])
    if [1 for c, s, sec, n, fs in d.findings if sec == "hangs"]:
        bad.append("the hangs section repeats a finding's block")
    if "--straggler" in args:
        jh = [f for f in findings if f["code"] == "JOB_HANG"]
        if not jh or not any(isinstance((f.get("evidence") or {})
                                        .get("straggler"), dict)
                             for f in jh):
            bad.append("the hang case gave check no JOB_HANG with a "
                       "straggler")
    if "--hang" in args:
        if "No hang" in " ".join(d.hang_text) or not d.hang_rows:
            bad.append("the hangs section shows no hang (rows: %d)"
                       % len(d.hang_rows))
    if "--diff" in args:
        with open(args[args.index("--diff") + 1], encoding="utf-8") as f:
            want_keys = [c["key"] for c in json.load(f)["environment"]]
        if not want_keys or d.diff_keys != want_keys:
            bad.append("what changed: page %s, diff --json %s"
                       % (d.diff_keys, want_keys))
    if libs is not None:
        if not d.lib_rows:
            bad.append("filter %r: no library row shown" % libs)
        for row in d.lib_rows:
            if libs.lower() not in row.lower():
                bad.append("filter %r shows a row without it: %s"
                           % (libs, row[:120]))
                break
    else:
        # Folded: a summary line, no row until asked.
        if not d.lib_summary:
            bad.append("no summary line of the libraries")
        if d.lib_rows:
            bad.append("%d library rows shown by default" % len(d.lib_rows))
    n = int(probe.get("data-tl-legend", "-1"))
    if n < 5:
        bad.append("the timeline's legend (#tl-legend) has %d states" % n)
    for b in bad:
        print("report_dom: %s: %s" % (dom_path, b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
