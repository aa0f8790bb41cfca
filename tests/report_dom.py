#!/usr/bin/env python3
"""Checks a report as Chromium rendered it (its --dump-dom) against what
the analyzer says of the same traces (check --json).

    report_dom.py DOM CHECK_JSON CONSOLE_LOG [--libs TEXT] [--hang]
                  [--diff DIFF_JSON]

Exits 1 with one line per mismatch.  The page must have rendered without
an error, have made no request (its Content-Security-Policy blocks every
one, and the page counts the violations), show every finding of check
with its code and severity, and every process in its tree."""
import json
import sys
from collections import Counter
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = {}
        self.findings = []   # (code, severity, section) of each block
        self.tree_pids = []
        self.hang_rows = []  # pid of each row of the hang table
        self.diff_keys = []  # data-key of each row of "What changed"
        self.deaths = []     # data-death of the tree's entries
        self.lib_rows = []   # text of each library row
        self.section = None
        self.in_lib = 0
        self.lib_text = []
        self.hang_text = []
        self.urls = []
        self.csp = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
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
        if "data-code" in a:
            self.findings.append((a["data-code"], a.get("data-severity"),
                                  self.section))
        if tag == "tr" and self.section == "changes" and "data-key" in a:
            self.diff_keys.append(a["data-key"])
        if tag == "tr" and self.section == "hangs" and "data-pid" in a:
            self.hang_rows.append(int(a["data-pid"]))
        if tag == "li" and self.section == "job" and "data-pid" in a:
            self.tree_pids.append(int(a["data-pid"]))
        if tag == "tr" and "data-path" in a:
            self.in_lib = 1
            self.lib_text = []
        elif tag == "tr" and self.in_lib:
            self.in_lib = 0

    def handle_endtag(self, tag):
        if tag == "tr" and self.in_lib:
            self.lib_rows.append("".join(self.lib_text))
            self.in_lib = 0
        if tag == "section":
            self.section = None

    def handle_data(self, data):
        if self.in_lib:
            self.lib_text.append(data)
        if self.section == "hangs":
            self.hang_text.append(data)


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

    want = Counter((f["code"], f["severity"]) for f in check["findings"])
    got = Counter((c, s) for c, s, sec in d.findings if sec == "verdict")
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
    for f in check["findings"]:
        if f["code"] in ("CRASH", "OOM_KILL", "SIGKILL", "SIGNAL_SENT") \
                and f.get("trace"):
            died.setdefault(f["trace"], f["code"])
    if libs is None and sorted(died.values()) != sorted(d.deaths):
        bad.append("deaths in the tree %s, check says %s"
                   % (sorted(d.deaths), sorted(died.values())))
    if "--crash" in args and "CRASH" not in d.deaths:
        bad.append("the crash case shows no CRASH in the tree")
    # Every hang finding of check is shown in the hangs section, message
    # and all: the straggler the analyzer names is the one the page names.
    hang_text = " ".join(d.hang_text)
    for f in check["findings"]:
        shown = [s for c, s, sec in d.findings if sec == "hangs"
                 and c == f["code"]]
        if shown and f["message"] not in hang_text:
            bad.append("hangs section lacks: %s" % f["message"])
    if "--straggler" in args:
        # The job's verdict names the rank that holds it up; the page shows
        # that finding in its hangs section, straggler and all.
        jh = [f for f in check["findings"] if f["code"] == "JOB_HANG"]
        if not jh:
            bad.append("the hang case gave check no JOB_HANG")
        for f in jh:
            st = (f.get("evidence") or {}).get("straggler") or {}
            if f["message"] not in hang_text or \
                    ("pid %s" % st.get("pid")) not in hang_text:
                bad.append("hangs section does not name the straggler "
                           "(pid %s)" % st.get("pid"))
    if "--hang" in args:
        if "No hang" in hang_text or not d.hang_rows:
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
    for b in bad:
        print("report_dom: %s: %s" % (dom_path, b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
