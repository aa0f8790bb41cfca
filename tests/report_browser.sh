#!/usr/bin/env bash
# The HTML report in a real browser: writes reports of the healthy-looking
# demo (a wrong library and a missing one), a crash, a hang ended by
# --hang-timeout, a tree of 1,000 processes and, where Debian's
# python3-torch is installed, a hung two-rank gloo job and a crashed
# DataLoader worker; opens each from file:// in headless Chromium at
# 1280x900 and checks what the page drew (tests/report_dom.py) against
# check --json of the same traces; then the library filter, preset from
# the address.
#
#   report_browser.sh BUILD_DIR
#
# What a person sees (the first screen, the visible text) is read by
# tests/report_probe.js, put into a copy of each page after its scripts.
# DLT_SCREENSHOTS=DIR also writes DIR/report-demo.png, report-hang.png
# (the gloo hang) and report-crash.png (the DataLoader worker) at
# 1280x900 (scripts/screenshots.sh).  DLT_TEST_PYTHON: the Python with
# torch (default /usr/bin/python3).  DLT_KEEP=1 keeps the work directory.
#
# Exits 77 (skipped) where Chromium is not installed:
# DLTRACE_BROWSER=1 scripts/install-deps.sh installs Debian's.
set -u
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	echo "SKIP: Chromium is not installed (DLTRACE_BROWSER=1 scripts/install-deps.sh installs it)"
	exit 77
fi
PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
	echo "SKIP: python3 (for reading the rendered page) is not installed"
	exit 77
fi
SHOTS=${DLT_SCREENSHOTS:-}
if [ -n "$SHOTS" ]; then
	mkdir -p "$SHOTS" && SHOTS=$(cd "$SHOTS" && pwd)
fi
W=$(mktemp -d /tmp/dlt-report.XXXXXX)
BG=
cleanup() {
	[ -n "$BG" ] && kill "$BG" 2>/dev/null
	# DLT_KEEP=1 keeps the pages, their DOMs and traces to look at.
	if [ -n "${DLT_KEEP:-}" ]; then echo "kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
A="$B/bin/dltrace-analyze"
L="$B/bin/dltrace"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Chromium as a user would open the file, with its own profile and no
# background traffic of its own; virtual time lets the page's script
# finish before the DOM is read, however loaded the machine is.  UTC, so
# that the page's wall-clock times read the same everywhere.
browse() { # ARGS...
	TZ=UTC timeout 240 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$W/profile" --no-first-run \
		--disable-background-networking --disable-component-update \
		--enable-logging=stderr --v=0 --virtual-time-budget=10000 \
		--window-size=1280,900 "$@"
}
render() { # HTML DOM LOG [FRAGMENT]
	browse --dump-dom "file://$1${4:-}" >"$2" 2>"$3"
}
# A copy of the page with the probe after the page's own scripts.
probe() { # HTML COPY
	"$PY" - "$1" "$2" "$HERE/report_probe.js" <<'EOF'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
js = open(sys.argv[3], encoding="utf-8").read()
at = page.rindex("</body>")
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(page[:at] + "<script>\n" + js + "</script>\n" + page[at:])
EOF
}
shot() { # HTML NAME
	[ -n "$SHOTS" ] || return 0
	if browse --screenshot="$SHOTS/$2" "file://$1" >/dev/null 2>&1; then
		echo "screenshot: $SHOTS/$2"
	else
		fail "screenshot $2"
	fi
}

check_case() { # NAME DIR [report_dom options]
	local name=$1 dir=$2
	shift 2
	if ! "$A" report -o "$W/$name.html" "$dir" 2>"$W/$name.report.err"; then
		fail "$name: report failed: $(cat "$W/$name.report.err")"
		return
	fi
	"$A" check --json "$dir" >"$W/$name.check.json" 2>/dev/null
	probe "$W/$name.html" "$W/$name.p.html"
	if ! render "$W/$name.p.html" "$W/$name.dom" "$W/$name.log"; then
		fail "$name: Chromium did not render the page"
		return
	fi
	if "$PY" "$HERE/report_dom.py" "$W/$name.dom" "$W/$name.check.json" \
		"$W/$name.log" "$@"; then
		echo "ok: $name ($(stat -c %s "$W/$name.html") bytes," \
			"$(grep -o 'data-render-ms="[0-9]*"' "$W/$name.dom"))"
	else
		fail "$name: the page differs from check --json"
	fi
	# The timeline: what it drew, against the same check.
	"$PY" "$HERE/report_timeline.py" "$W/$name.dom" "$W/$name.check.json" "$@" || fail "$name: the timeline differs from check --json"
}

# The torch cases take seconds to start: the gloo hang runs (until its
# --hang-timeout) while the others are checked.
TPY=${DLT_TEST_PYTHON:-/usr/bin/python3}
TORCH=
if [ -x "$TPY" ] && "$TPY" -c 'import torch.distributed as d; assert d.is_available()' \
	>/dev/null 2>&1; then
	TORCH=1
	# Rank 1 sleeps in load_batch (sleep_before_collective.py:12) while
	# rank 0 waits in all_reduce: the fault corpus's case, launched as
	# its runner does (tests/corpus/run.py) under spawn.
	PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	(cd "$W" && env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT -u LD_PRELOAD \
		PYTHONPATH="$HERE/corpus${PYTHONPATH:+:$PYTHONPATH}" \
		CORPUS_LAUNCHER=spawn CORPUS_WORLD=2 CORPUS_PORT="$PORT" \
		DLTRACE_STALL_MS=1000 PYTHONUNBUFFERED=1 \
		"$L" -o "$W/gloo" --hang-timeout 15 -- "$TPY" \
		"$HERE/corpus/cases/sleep_before_collective.py" \
		>"$W/gloo.out" 2>&1) &
	BG=$!
else
	echo "skip: gloo and dataloader cases ($TPY has no torch.distributed: Debian's python3-torch)"
fi

# 1. The demo: a library shadowed through LD_LIBRARY_PATH, one not found.
D="$B/examples/demo"
LD_LIBRARY_PATH="$D/system" "$L" -o "$W/demo" -- "$D/app" \
	"$D/plugins/libplugin.so" >/dev/null 2>&1
check_case demo "$W/demo"
shot "$W/demo.html" report-demo.png
# The library filter, preset from the address (#libs=TEXT), as someone
# sharing the report would link it: the libraries are folded by default
# (report_dom.py checks that no row is drawn), the filter draws the rows
# that match and only those.
if render "$W/demo.p.html" "$W/demo-f.dom" "$W/demo-f.log" "#libs=libdemo"; then
	"$PY" "$HERE/report_dom.py" "$W/demo-f.dom" "$W/demo.check.json" \
		"$W/demo-f.log" --libs libdemo || fail "demo: library filter"
	n_all=$(grep -c 'data-path=' "$W/demo.dom")
	n_f=$(grep -c 'data-path=' "$W/demo-f.dom")
	[ "$n_all" -eq 0 ] && [ "$n_f" -gt 0 ] ||
		fail "demo: $n_all library rows by default, $n_f filtered"
else
	fail "demo: Chromium did not render the filtered page"
fi

# A diff report: the demo run again with the program's own copy of libdemo
# (no LD_LIBRARY_PATH), then --diff old new: the page's "What changed"
# must list what diff --json lists, in its order.
"$L" -o "$W/demo0" -- "$D/app" "$D/plugins/libplugin.so" >/dev/null 2>&1
if "$A" report --diff -o "$W/diff.html" "$W/demo0" "$W/demo" 2>/dev/null &&
	"$A" diff --json "$W/demo0" "$W/demo" >"$W/diff.json" &&
	probe "$W/diff.html" "$W/diff.p.html" &&
	render "$W/diff.p.html" "$W/diff.dom" "$W/diff.log"; then
	"$PY" "$HERE/report_dom.py" "$W/diff.dom" "$W/demo.check.json" \
		"$W/diff.log" --diff "$W/diff.json" && echo "ok: diff" ||
		fail "diff report"
else
	fail "diff report: not written or not rendered"
fi

# 2. A crash: a shell whose child (the suite's fixture) dies of SIGSEGV
# in a named function of a library.
CRASHER="$B/tests/fx/fx_crash"
if [ -x "$CRASHER" ]; then
	"$L" -o "$W/crash" -- sh -c "\"$CRASHER\" segv; exit 3" >/dev/null 2>&1
else
	"$L" -o "$W/crash" -- sh -c 'sh -c "kill -SEGV \$\$"; exit 3' \
		>/dev/null 2>&1
fi
check_case crash "$W/crash" --crash

# 3. A hang, ended by the launcher: two ranks of the fake NCCL (built
# against the real headers where they exist) started by one shell, rank 1
# held before ncclCommInitRank while rank 0 waits in it.  Without the
# fake, a shell waiting for a sleep.
FX_NCCL="$B/tests/fakes/bin/fx_nccl"
if [ -x "$FX_NCCL" ]; then
	R="$W/rdv"
	mkdir -p "$R"
	export FAKE_NCCL_DIR="$R" FAKE_NCCL_VERSION=22810 FAKE_NCCL_COLL_SYNC=1
	"$L" --hang-timeout 4 -o "$W/hang" -- sh -c "
		RANK=0 \"$FX_NCCL\" --nranks 2 --rank 0 --id-file \"$R/id\" &
		RANK=1 \"$FX_NCCL\" --nranks 2 --rank 1 --id-file \"$R/id\" \
			--hold-before-init &
		wait" >/dev/null 2>&1
	unset FAKE_NCCL_DIR FAKE_NCCL_VERSION FAKE_NCCL_COLL_SYNC
	check_case hang "$W/hang" --hang --straggler
else
	"$L" --hang-timeout 2 -o "$W/hang" -- sh -c 'sleep 600' >/dev/null 2>&1
	check_case hang "$W/hang" --hang
fi

# 4. A tree of 1,000 processes (each /bin/true forked by one shell): the
# page stays under 5 MB.
"$L" -o "$W/tree" -- sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done' \
	>/dev/null 2>&1
n=$(ls "$W/tree" | grep -c '\.dltrace$')
[ "$n" -ge 1001 ] || fail "tree: $n traces, expected 1001"
check_case tree "$W/tree"
size=$(stat -c %s "$W/tree.html" 2>/dev/null || echo 0)
[ "$size" -gt 0 ] && [ "$size" -le 5000000 ] ||
	fail "tree: the page of 1,001 processes is $size bytes (at most 5 MB)"

if [ -n "$TORCH" ]; then
	# 5. A DataLoader worker that dies of SIGSEGV (its Dataset reads
	# address 0 through ctypes; tests/test_signals.c's case): the first
	# screen's tree marks the worker dead under the main process.
	cat >"$W/loader.py" <<'EOF'
import ctypes, os, sys, torch
from torch.utils.data import DataLoader, Dataset
class D(Dataset):
    def __len__(self): return 4
    def __getitem__(self, i):
        print('worker', os.getpid(), flush=True)
        ctypes.string_at(0)
try:
    for b in DataLoader(D(), num_workers=1): pass
except RuntimeError as e:
    print('main:', e, flush=True)
    sys.exit(1)
EOF
	"$L" -o "$W/loader" -- "$TPY" "$W/loader.py" >"$W/loader.out" 2>&1
	check_case loader "$W/loader" --crash
	shot "$W/loader.html" report-crash.png

	# 6. The gloo hang started above: the first screen names rank 1 and
	# its line, sleep_before_collective.py:12, in the picture.
	wait "$BG"
	BG=
	check_case gloo "$W/gloo" --hang --straggler
	shot "$W/gloo.html" report-hang.png
fi

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all report cases passed"
