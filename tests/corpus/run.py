#!/usr/bin/env python3
"""Runs the fault corpus (tests/corpus/cases.py) end to end: each case's
ranks as real processes under `dltrace --hang-timeout`, then judges
`dltrace-analyze check --json` against what the case declares.

  run.py [--build DIR] [--kind K]... [--launcher L]... [--ci] [--jobs N]
         [--results DIR] [--write-docs FILE] [--list] [--keep]

The build directory is --build, else $DLTRACE_BUILD, else $BUILD_DIR, else
build/ of the checkout.  At most 2 cases run at a time, each with its own
free port and temporary directory.  Writes results.json and table.md into
--results (default: a new temporary directory) and prints a table.  Exits
1 when a case marked required for its launcher is wrong, 77 when every
selected case was skipped, 0 otherwise.

A case's culprit is taken from its error finding (the one whose code the
case expects, else the first): evidence.culprit when the analyzer gives
it, else the finding's straggler (evidence.straggler), missing rank
(evidence.missing_rank / missing_ranks), or the process it is about.  A pid
is turned into a rank only as the analyzer says it (processes[].rank,
processes[].identity.rank), and into "worker of rank R" through its ppid.
The programs also write down their own pids (the ground truth), which is
reported beside it as pid_right and never used to judge.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cases as corpus_cases  # noqa: E402

PY = os.environ.get("DLT_TEST_PYTHON", "/usr/bin/python3")
TORCHRUN = os.environ.get("DLT_TEST_TORCHRUN", "/usr/bin/torchrun")
STALL_MS = "1000"
MARK = re.compile(r"#\s*CULPRIT(-ALT)?\b")
SEVERE = ("warning", "error")


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- what can run here ----------------------------------------------------

_probe_lock = threading.Lock()
_probes = {}


def probe(name, fn):
    with _probe_lock:
        if name not in _probes:
            _probes[name] = fn()
        return _probes[name]


def torch_skip():
    def fn():
        if not os.access(PY, os.X_OK):
            return "no %s" % PY
        r = subprocess.run([PY, "-c", "import torch.distributed as d; "
                            "assert d.is_available()"],
                           capture_output=True, text=True)
        return None if r.returncode == 0 else (
            "%s has no torch.distributed (Debian's python3-torch)" % PY)
    return probe("torch", fn)


def memcg_skip_and_root():
    """The memory cgroup a case may make: (reason, parent dir, version)."""
    if os.geteuid() != 0:
        return "not root: cannot make a memory cgroup", None, 0
    if os.path.isdir("/sys/fs/cgroup/memory"):
        return None, "/sys/fs/cgroup/memory", 1
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        with open("/sys/fs/cgroup/cgroup.controllers") as f:
            if "memory" in f.read().split():
                return None, "/sys/fs/cgroup", 2
    return "no memory cgroup controller here", None, 0


def make_cgroup(tag):
    """A memory cgroup of 256 MiB without swap, as tests/test_death.c's
    make_cgroup makes one; (path, None) or (None, reason)."""
    why, parent, version = memcg_skip_and_root()
    if why:
        return None, why
    path = os.path.join(parent, "dltrace-corpus-%d-%s" % (os.getpid(), tag))
    try:
        os.mkdir(path, 0o755)
    except OSError as e:
        return None, "cannot make %s: %s" % (path, e)
    limit = "memory.limit_in_bytes" if version == 1 else "memory.max"
    try:
        with open(os.path.join(path, limit), "w") as f:
            f.write(str(256 << 20))
    except OSError as e:
        os.rmdir(path)
        return None, "cannot set %s in %s (v%d): %s" % (limit, path,
                                                         version, e)
    swap = "memory.memsw.limit_in_bytes" if version == 1 else "memory.swap.max"
    try:
        with open(os.path.join(path, swap), "w") as f:
            f.write(str(256 << 20) if version == 1 else "0")
    except OSError:
        pass  # no swap accounting here
    return path, None


def remove_cgroup(path):
    for _ in range(50):
        try:
            os.rmdir(path)
            return
        except OSError:
            time.sleep(0.1)


# ---- the runs ---------------------------------------------------------------

HELPERS = ("corpus_common.py", "corpus_nccl.py")


def culprit_lines(script, kind=None):
    """(primary, all) "file.py:LINE" of the # CULPRIT marks of a script,
    with the helper modules' lines marked "# CULPRIT-ALT(kind)" for this
    kind: the program's own innermost frame may be its helper's (a
    wrapper that makes the call)."""
    path = os.path.join(HERE, "cases", script + ".py")
    prim, every = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = MARK.search(line)
            if m:
                loc = "%s.py:%d" % (script, n)
                every.append(loc)
                if not m.group(1):
                    prim.append(loc)
    tag = "# CULPRIT-ALT(%s)" % kind
    for h in HELPERS if kind else ():
        with open(os.path.join(HERE, h)) as f:
            for n, line in enumerate(f, 1):
                if tag in line:
                    every.append("%s:%d" % (h, n))
    return prim, every


def case_id(c, launcher):
    return "%s/%s" % (c["kind"], launcher)


def expand(cases, kinds, launchers, ci):
    out = []
    for c in cases:
        for L in c["launchers"]:
            if kinds and c["kind"] not in kinds:
                continue
            if launchers and L not in launchers:
                continue
            if ci and L not in c.get("ci", []):
                continue
            out.append((c, L))
    return out


def checks_of(c, launcher):
    ch = c.get("checks", [])
    if isinstance(ch, dict):
        ch = ch.get(launcher, [])
    return list(ch)


def read_truth(d):
    ranks, workers = {}, {}
    for name in os.listdir(d) if os.path.isdir(d) else []:
        m = re.match(r"(rank|worker)-(\d+)\.pid$", name)
        if not m:
            continue
        try:
            with open(os.path.join(d, name)) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            continue
        (ranks if m.group(1) == "rank" else workers)[int(m.group(2))] = pid
    return ranks, workers


def run_case(c, launcher, build, keep_root):
    cid = case_id(c, launcher)
    res = {"id": cid, "kind": c["kind"], "launcher": launcher,
           "world": c["world"], "expected": {
               "codes": c["codes"], "culprit": c["culprit"],
               "cause": c["cause"]},
           "required": launcher in c.get("required", []),
           "checks": checks_of(c, launcher)}
    if c.get("skip_reason"):
        res.update(status="skip", reason=c["skip_reason"])
        return res
    if launcher != "nccl":
        why = torch_skip()
        if why:
            res.update(status="skip", reason=why)
            return res
    if launcher == "torchrun" and not os.access(TORCHRUN, os.X_OK):
        res.update(status="skip", reason="no %s" % TORCHRUN)
        return res
    nccl_lib = os.path.join(build, "tests", "fakes", "nccl", "libnccl.so.2")
    if launcher == "nccl" and not os.path.exists(nccl_lib):
        res.update(status="skip", reason="no fake NCCL at %s" % nccl_lib)
        return res
    prim, every = culprit_lines(c["script"], c["kind"])
    want_line = prim[0] if c.get("line") and prim else None
    res["expected"]["line"] = want_line

    tmp = tempfile.mkdtemp(prefix="corpus-%s-%s-" % (c["kind"], launcher),
                           dir=keep_root)
    trace = os.path.join(tmp, "trace")
    truth = os.path.join(tmp, "truth")
    os.mkdir(truth)
    port, port2 = free_port(), free_port()
    env = dict(os.environ)
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
              "MASTER_PORT", "LD_PRELOAD", "DLTRACE_DIR"):
        env.pop(k, None)
    # The cases import corpus_common from here (spawn's children and
    # torchrun's workers too, through the environment).
    env["PYTHONPATH"] = HERE + (":" + env["PYTHONPATH"]
                                if env.get("PYTHONPATH") else "")
    env.update(DLTRACE_STALL_MS=STALL_MS, CORPUS_LAUNCHER=launcher,
               CORPUS_WORLD=str(c["world"]), CORPUS_PORT=str(port),
               CORPUS_TRUTH=truth, CORPUS_TMP=tmp, PYTHONUNBUFFERED="1",
               CORPUS_SKIP_RANKS=" ".join(str(r) for r in
                                          c.get("skip_ranks", [])))
    subst = {"port2": str(port2), "nccl_copy": ""}
    cgroup = None
    if "cgroup" in c.get("setup", []):
        cgroup, why = make_cgroup(c["kind"] + "-" + launcher)
        if cgroup is None:
            res.update(status="skip", reason=why)
            shutil.rmtree(tmp, ignore_errors=True)
            return res
        env["CORPUS_CGROUP"] = cgroup
    if launcher == "nccl":
        env.update(CORPUS_NCCL_LIB=nccl_lib, FAKE_NCCL_DIR=tmp,
                   FAKE_NCCL_COLL_SYNC="1", FAKE_NCCL_VERSION="22809")
        if "nccl_copy" in c.get("setup", []):
            other = os.path.join(tmp, "nccl-2.27")
            os.mkdir(other)
            shutil.copy2(nccl_lib, other)
            subst["nccl_copy"] = os.path.join(other, "libnccl.so.2")
    for r, extra in c.get("rank_env", {}).items():
        env["CORPUS_RANK_ENV_%d" % r] = extra.format(**subst)
    script = os.path.join(HERE, "cases", c["script"] + ".py")
    timeout = c.get("timeout", 25 if c["world"] <= 2 else 35)
    dl = [os.path.join(build, "bin", "dltrace"), "-o", trace,
          "--hang-timeout", str(timeout), "--"]
    if launcher in ("spawn", "single"):
        cmd = dl + [PY, script]
    elif launcher == "torchrun":
        # torch 1.13's torchrun knows only the underscore spellings
        # (2.x takes both); on Python 3.11 its default --redirects 0 fails
        # (Std.from_str("0") is None: 3.11 no longer iterates an IntFlag's
        # zero member), "1" (stdout to a file, teed) parses.
        targs = c.get("torchrun_args") or ["--nproc_per_node",
                                           str(c["world"])]
        cmd = dl + [TORCHRUN, "--redirects", "1", "--tee", "1"] + targs + [
            "--master_port", str(port), "--log_dir",
            os.path.join(tmp, "torchrun-logs"), script]
    else:  # env, nccl
        cmd = dl + ["/bin/sh", os.path.join(HERE, "launch_env.sh"), PY,
                    script]
    res["command"] = " ".join(cmd)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True,
                           timeout=timeout + 90, cwd=tmp)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or "", e.stderr or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        if isinstance(err, bytes):
            err = err.decode(errors="replace")
    res["seconds"] = round(time.monotonic() - t0, 1)
    res["launcher_rc"] = rc
    res["verdict"] = [line for line in err.splitlines()
                      if line.startswith("dltrace:")]
    ana = os.path.join(build, "bin", "dltrace-analyze")
    chk = subprocess.run([ana, "check", "--json", trace],
                         capture_output=True, text=True, timeout=300)
    hng = subprocess.run([ana, "hangs", "--json", trace],
                         capture_output=True, text=True, timeout=300)
    with open(os.path.join(tmp, "log.txt"), "w") as f:
        f.write("$ %s\nexit: %s\n--- stdout\n%s\n--- stderr\n%s\n"
                % (res["command"], rc, out, err))
        f.write("--- check --json (exit %d)\n%s\n%s\n"
                % (chk.returncode, chk.stdout, chk.stderr))
        f.write("--- hangs --json (exit %d)\n%s\n%s\n"
                % (hng.returncode, hng.stdout, hng.stderr))
    res["log"] = os.path.join(tmp, "log.txt")
    if cgroup:
        remove_cgroup(cgroup)
    try:
        j = json.loads(chk.stdout)
    except ValueError:
        res.update(status="error", reason="check --json gave no JSON (exit "
                   "%d): %s" % (chk.returncode, chk.stderr.strip()[:200]))
        return res
    ranks, workers = read_truth(truth)
    if "usage:" in err and "error:" in err and not ranks:
        res.update(status="error", reason="the launcher refused its "
                   "arguments: " + err.strip().splitlines()[-1][:200])
        return res
    judge(res, c, launcher, j, ranks, workers, want_line, every)
    if not keep_root:
        shutil.rmtree(tmp, ignore_errors=True)
        res["log"] = None
    return res


# ---- judging ----------------------------------------------------------------

def proc_rank(p):
    if p is None:
        return None
    ident = p.get("identity") or {}
    if ident.get("rank") is not None:
        return ident["rank"]
    return p.get("rank")


def name_of(pid, rank, procs):
    """The culprit as the analyzer names it: a rank, "worker of rank R",
    or "pid N" when it gives no rank."""
    if rank is not None:
        return rank
    p = procs.get(pid)
    r = proc_rank(p)
    if r is not None:
        return r
    if p is not None:
        rp = proc_rank(procs.get(p.get("ppid")))
        if rp is not None:
            return "worker of rank %d" % rp
    return "pid %s" % pid if pid is not None else None


def culprit_of(f, procs):
    ev = f.get("evidence") or {}
    c = ev.get("culprit")
    if isinstance(c, dict):
        return dict(source="evidence.culprit", pid=c.get("pid"),
                    rank=c.get("rank"), python_at=c.get("python_at"),
                    worker_of=c.get("worker_of"),
                    cause=c.get("cause") or ev.get("why") or "")
    st = ev.get("straggler")
    if isinstance(st, dict):
        return dict(source="evidence.straggler", pid=st.get("pid"),
                    rank=st.get("rank"), python_at=st.get("python_at"),
                    cause=(ev.get("why") or "") + " | " + f.get("message",
                                                                ""))
    miss = ev.get("missing_rank")
    if miss is None and ev.get("missing_ranks"):
        miss = ev["missing_ranks"][0]
    if miss is not None:
        return dict(source="evidence.missing_rank", pid=None, rank=miss,
                    python_at=None, cause="missing | " + f.get("message",
                                                               ""))
    return dict(source="finding", pid=f.get("pid"), rank=f.get("rank"),
                python_at=ev.get("python_at"),
                cause=(ev.get("why") or "") + " | " + f.get("message", ""))


def loc_of(python_at):
    if not python_at:
        return None
    where = python_at.split(" in ")[0].strip()
    file, _, line = where.rpartition(":")
    return "%s:%s" % (os.path.basename(file), line)


def judge(res, c, launcher, j, ranks, workers, want_line, every):
    procs = {p["pid"]: p for p in j.get("processes", [])}
    findings = j.get("findings", [])
    errors = [f for f in findings if f.get("severity") == "error"]
    res["errors"] = ["%s pid %s rank %s" % (f["code"], f.get("pid"),
                                            f.get("rank")) for f in errors]
    res["warnings"] = ["%s pid %s rank %s" % (f["code"], f.get("pid"),
                                              f.get("rank"))
                       for f in findings if f.get("severity") == "warning"]
    primary = next((f for code in c["codes"] for f in errors
                    if f["code"] == code), errors[0] if errors else None)
    truth_pids = set(ranks.values()) | set(workers.values())
    want = c["culprit"]
    want_pid = (workers.get(int(want.split()[-1])) if isinstance(want, str)
                else ranks.get(want))
    got = {}
    if primary is not None:
        got = culprit_of(primary, procs)
        got["code"] = primary["code"]
        got["name"] = (
            "worker of rank %d" % got["worker_of"]
            if got.get("worker_of") is not None
            else name_of(got.get("pid"), got.get("rank"), procs))
        got["message"] = primary.get("message", "").splitlines()[0][:400]
    res["got"] = got
    res["code_right"] = primary is not None and primary["code"] in c["codes"]
    res["culprit_right"] = primary is not None and got["name"] == want
    res["pid_right"] = (None if want_pid is None else
                        primary is not None and got.get("pid") == want_pid)
    cause = (got.get("cause") or "").lower()
    res["cause_right"] = primary is not None and any(
        w.lower() in cause for w in c["cause"])
    if want_line is None:
        res["line_right"] = None
    else:
        res["line_right"] = loc_of(got.get("python_at")) in every
    res["one_error"] = len(errors) == 1
    # Healthy processes: those that are neither a rank nor a worker of one
    # (the launcher's python, torchrun's agent, the shell, spawn's parent)
    # get no warning or error unless it is the culprit's own finding.
    noisy = [f for f in findings if f.get("severity") in SEVERE and
             f.get("pid") is not None and f.get("pid") not in truth_pids and
             f is not primary]
    res["healthy_silent"] = not noisy
    res["noise"] = ["%s %s pid %s: %s" % (f["severity"], f["code"],
                                          f.get("pid"),
                                          f.get("message", "")[:160])
                    for f in noisy]
    extra = {}
    for ch in res["checks"]:
        if ch == "one_error":
            extra[ch] = res["one_error"]
        elif ch == "quiet_signals":
            bad = [f for f in findings if f.get("severity") in SEVERE and
                   (f["code"] in ("SIGNAL_SENT", "SIGKILL") or
                    re.search(r"SIGINT|SIGTERM", f.get("message", "")
                              .splitlines()[0] if f.get("message") else ""))]
            extra[ch] = not bad
            if bad:
                res["noise"] += ["signal: %s pid %s" % (f["code"],
                                                        f.get("pid"))
                                 for f in bad]
        elif ch == "msg160":
            long_ = [f for f in findings
                     if len((f.get("message") or "").splitlines()[0]
                            if f.get("message") else "") > 160]
            extra[ch] = not long_
            res["long_messages"] = ["%s pid %s: %d chars" % (
                f["code"], f.get("pid"), len(f["message"].splitlines()[0]))
                for f in long_]
    res["extra"] = extra
    parts = [res["culprit_right"], res["cause_right"], res["healthy_silent"]]
    if res["line_right"] is not None:
        parts.append(res["line_right"])
    parts += list(extra.values())
    res["status"] = "pass" if all(parts) else "fail"


# ---- reports ------------------------------------------------------------------

def mark(v):
    return "skip" if v == "skip" else ("-" if v is None else
                                       ("✓" if v else "✗"))


def print_table(results):
    print("%-26s %-8s %-6s %-7s %-5s %-4s %-5s %-6s %5s  %s" % (
        "kind", "launcher", "status", "culprit", "cause", "line", "1err",
        "quiet", "secs", "got"))
    for r in results:
        if r["status"] in ("skip", "error"):
            print("%-26s %-8s %-6s %s" % (r["kind"], r["launcher"],
                                          r["status"], r.get("reason", "")))
            continue
        got = r.get("got") or {}
        desc = ("%s %s%s" % (got.get("code"), got.get("name"),
                             " at " + loc_of(got["python_at"])
                             if got.get("python_at") else "")
                if got else "no error finding")
        extra = " ".join("%s=%s" % (k, mark(v))
                         for k, v in r["extra"].items())
        print("%-26s %-8s %-6s %-7s %-5s %-4s %-5s %-6s %5s  %s%s" % (
            r["kind"], r["launcher"], r["status"] + ("*" if r["required"]
                                                     else ""),
            mark(r["culprit_right"]), mark(r["cause_right"]),
            mark(r["line_right"]), mark(r["one_error"]),
            mark(r["healthy_silent"]), r.get("seconds", ""), desc,
            ("  " + extra) if extra else ""))


def markdown(results, seconds):
    launchers = ["spawn", "torchrun", "env", "single", "nccl"]
    kinds = []
    for r in results:
        if r["kind"] not in kinds:
            kinds.append(r["kind"])
    by = {(r["kind"], r["launcher"]): r for r in results}
    used = [L for L in launchers if any(r["launcher"] == L
                                        for r in results)]
    lines = ["| kind | " + " | ".join(used) + " |",
             "|---|" + "---|" * len(used)]
    tot = {"culprit": [0, 0], "cause": [0, 0], "line": [0, 0],
           "one_error": [0, 0], "healthy": [0, 0]}
    skipped = 0
    for k in kinds:
        cells = []
        for L in used:
            r = by.get((k, L))
            if r is None:
                cells.append("")
                continue
            if r["status"] in ("skip", "error"):
                skipped += 1
                cells.append(r["status"])
                continue
            for key, field in (("culprit", "culprit_right"),
                               ("cause", "cause_right"),
                               ("line", "line_right"),
                               ("one_error", "one_error"),
                               ("healthy", "healthy_silent")):
                if r[field] is not None:
                    tot[key][1] += 1
                    tot[key][0] += bool(r[field])
            cells.append("%s %s %s" % (mark(r["culprit_right"]),
                                       mark(r["cause_right"]),
                                       mark(r["line_right"])))
        lines.append("| %s | %s |" % (k, " | ".join(cells)))
    ran = sum(1 for r in results if r["status"] in ("pass", "fail"))
    passed = sum(1 for r in results if r["status"] == "pass")
    lines.append("")
    lines.append("Each cell: culprit, cause, Python line (✓ right, ✗ wrong, "
                 "- no line expected; skip: cannot run here).")
    lines.append("")
    lines.append("| | right | of | % |")
    lines.append("|---|---|---|---|")
    for key, label in (("culprit", "culprit"), ("cause", "cause"),
                       ("line", "Python line"),
                       ("one_error", "one error finding"),
                       ("healthy", "healthy processes silent")):
        a, b = tot[key]
        lines.append("| %s | %d | %d | %s |" % (
            label, a, b, "%.0f" % (100.0 * a / b) if b else "-"))
    lines.append("| cases wholly right | %d | %d | %s |" % (
        passed, ran, "%.0f" % (100.0 * passed / ran) if ran else "-"))
    lines.append("")
    lines.append("%d cases run, %d skipped; the whole run took %d s "
                 "(%d min %02d s)." % (ran, skipped, seconds, seconds // 60,
                                      seconds % 60))
    return "\n".join(lines) + "\n"


def write_docs(path, table):
    with open(path) as f:
        text = f.read()
    b, e = "<!-- corpus-table:begin -->", "<!-- corpus-table:end -->"
    if b not in text or e not in text:
        sys.exit("run.py: %s has no %s ... %s markers" % (path, b, e))
    head, rest = text.split(b, 1)
    _, tail = rest.split(e, 1)
    with open(path, "w") as f:
        f.write(head + b + "\n" + table + e + tail)


def rejudge(path, build):
    """Each kept case of an earlier run, judged again from its traces."""
    with open(path) as f:
        old = json.load(f)
    by = {(c["kind"], L): c for c, L in expand(corpus_cases.CASES, [], [],
                                               False)}
    ana = os.path.join(build, "bin", "dltrace-analyze")
    results = []
    for r in old["results"]:
        c = by.get((r["kind"], r["launcher"]))
        if c is None or r.get("status") == "skip" or not r.get("log"):
            results.append(r)
            continue
        tmp = os.path.dirname(r["log"])
        chk = subprocess.run([ana, "check", "--json",
                              os.path.join(tmp, "trace")],
                             capture_output=True, text=True, timeout=300)
        prim, every = culprit_lines(c["script"], c["kind"])
        want_line = prim[0] if c.get("line") and prim else None
        res = {k: r[k] for k in ("id", "kind", "launcher", "world",
                                 "required", "checks", "seconds",
                                 "verdict", "log") if k in r}
        res["expected"] = {"codes": c["codes"], "culprit": c["culprit"],
                           "cause": c["cause"], "line": want_line}
        ranks, workers = read_truth(os.path.join(tmp, "truth"))
        judge(res, c, r["launcher"], json.loads(chk.stdout), ranks,
              workers, want_line, every)
        results.append(res)
    print_table(results)
    print("\n" + markdown(results, old.get("seconds", 0)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get(
        "DLTRACE_BUILD", os.environ.get("BUILD_DIR",
                                        os.path.join(ROOT, "build"))))
    ap.add_argument("--kind", action="append", default=[])
    ap.add_argument("--launcher", action="append", default=[])
    ap.add_argument("--ci", action="store_true",
                    help="only the CI subset (corpus_ci)")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--results", help="where results.json and table.md go")
    ap.add_argument("--write-docs", metavar="FILE",
                    help="rewrite the table between the corpus-table "
                    "markers of FILE (docs/hangs.md)")
    ap.add_argument("--keep", action="store_true",
                    help="keep each case's traces and log")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--rejudge", metavar="RESULTS",
                    help="judge again the traces a --keep run left (its "
                    "results.json) with this build's analyzer: for "
                    "analyzer changes, without running the jobs again")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if a.rejudge:
        return rejudge(a.rejudge, build)
    sel = expand(corpus_cases.CASES, a.kind, a.launcher, a.ci)
    if a.list:
        for c, L in sel:
            print("%-28s %-9s world %d%s%s" % (
                c["kind"], L, c["world"],
                "  required" if L in c.get("required", []) else "",
                "  skip: " + c["skip_reason"][:60]
                if c.get("skip_reason") else ""))
        return 0
    if not sel:
        sys.exit("run.py: no case selected")
    if not os.access(os.path.join(build, "bin", "dltrace"), os.X_OK):
        sys.exit("run.py: no %s/bin/dltrace: build first "
                 "(scripts/build.sh) or give --build" % build)
    results_dir = a.results or tempfile.mkdtemp(prefix="corpus-results-")
    os.makedirs(results_dir, exist_ok=True)
    keep_root = None
    if a.keep:
        keep_root = os.path.join(results_dir, "cases")
        os.makedirs(keep_root, exist_ok=True)
    jobs = max(1, min(a.jobs, 2))
    t0 = time.monotonic()
    results = [None] * len(sel)
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = {ex.submit(run_case, c, L, build, keep_root): i
                for i, (c, L) in enumerate(sel)}
        for fut in concurrent.futures.as_completed(futs):
            i = futs[fut]
            try:
                results[i] = fut.result()
            except Exception as e:  # a bug of the runner: said, not hidden
                c, L = sel[i]
                results[i] = {"id": case_id(c, L), "kind": c["kind"],
                              "launcher": L, "status": "error",
                              "required": L in c.get("required", []),
                              "reason": "runner: %r" % e}
            r = results[i]
            print("[%3.0f s] %-34s %s" % (time.monotonic() - t0, r["id"],
                                          r["status"]), flush=True)
    seconds = int(time.monotonic() - t0)
    print()
    print_table(results)
    table = markdown(results, seconds)
    with open(os.path.join(results_dir, "table.md"), "w") as f:
        f.write(table)
    with open(os.path.join(results_dir, "results.json"), "w") as f:
        json.dump({"seconds": seconds, "build": build, "results": results},
                  f, indent=1, ensure_ascii=False)
    print("\n" + table)
    print("results: %s/results.json, %s/table.md" % (results_dir,
                                                     results_dir))
    if a.write_docs:
        write_docs(a.write_docs, table)
        print("table written into %s" % a.write_docs)
    bad = [r for r in results if r["required"] and r["status"] in ("fail", "error")]
    for r in bad:
        print("REQUIRED case wrong: %s (%s)%s" % (
            r["id"], r["status"], ": " + r["reason"] if r.get("reason")
            else ""))
        # What it got and what the launcher said: a failure in CI is
        # read from its log alone.
        print("  got: %s" % json.dumps(r.get("got"), ensure_ascii=False))
        print("  errors: %s; warnings: %s" % (r.get("errors"),
                                              r.get("warnings")))
        for line in r.get("verdict") or []:
            print("  " + line)
    if bad:
        return 1
    if all(r["status"] == "skip" for r in results):
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
