#!/usr/bin/env bash
# The HTML report in a real browser: writes reports of the healthy-looking
# demo (a wrong library and a missing one), a crash, a hang ended by
# --hang-timeout and a tree of 1,000 processes, opens each from file:// in
# headless Chromium, and checks what the page drew (tests/report_dom.py)
# against check --json of the same traces; then the library filter, preset
# from the address.
#
#   report_browser.sh BUILD_DIR
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
W=$(mktemp -d /tmp/dlt-report.XXXXXX)
trap 'rm -rf "$W"' EXIT
A="$B/bin/dltrace-analyze"
L="$B/bin/dltrace"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Chromium as a user would open the file, with its own profile and no
# background traffic of its own; virtual time lets the page's script
# finish before the DOM is read, however loaded the machine is.
render() { # HTML DOM LOG [FRAGMENT]
	timeout 240 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$W/profile" --no-first-run \
		--disable-background-networking --disable-component-update \
		--enable-logging=stderr --v=0 --virtual-time-budget=10000 \
		--window-size=1280,1000 --dump-dom "file://$1${4:-}" \
		>"$2" 2>"$3"
}

check_case() { # NAME DIR [report_dom options]
	local name=$1 dir=$2
	shift 2
	if ! "$A" report -o "$W/$name.html" "$dir" 2>"$W/$name.report.err"; then
		fail "$name: report failed: $(cat "$W/$name.report.err")"
		return
	fi
	"$A" check --json "$dir" >"$W/$name.check.json" 2>/dev/null
	if ! render "$W/$name.html" "$W/$name.dom" "$W/$name.log"; then
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
	"$PY" "$HERE/report_timeline.py" "$W/$name.dom" "$W/$name.check.json" "$@" || fail "$name: the timeline differs from check --json"
}

# 1. The demo: a library shadowed through LD_LIBRARY_PATH, one not found.
D="$B/examples/demo"
LD_LIBRARY_PATH="$D/system" "$L" -o "$W/demo" -- "$D/app" \
	"$D/plugins/libplugin.so" >/dev/null 2>&1
check_case demo "$W/demo"
# The library filter, preset from the address (#libs=TEXT), as someone
# sharing the report would link it.
if render "$W/demo.html" "$W/demo-f.dom" "$W/demo-f.log" "#libs=libdemo"; then
	"$PY" "$HERE/report_dom.py" "$W/demo-f.dom" "$W/demo.check.json" \
		"$W/demo-f.log" --libs libdemo || fail "demo: library filter"
	n_all=$(grep -c 'data-path=' "$W/demo.dom")
	n_f=$(grep -c 'data-path=' "$W/demo-f.dom")
	[ "$n_f" -lt "$n_all" ] ||
		fail "demo: the filter kept all $n_all rows"
else
	fail "demo: Chromium did not render the filtered page"
fi

# A diff report: the demo run again with the program's own copy of libdemo
# (no LD_LIBRARY_PATH), then --diff old new: the page's "What changed"
# must list what diff --json lists, in its order.
"$L" -o "$W/demo0" -- "$D/app" "$D/plugins/libplugin.so" >/dev/null 2>&1
if "$A" report --diff -o "$W/diff.html" "$W/demo0" "$W/demo" 2>/dev/null &&
	"$A" diff --json "$W/demo0" "$W/demo" >"$W/diff.json" &&
	render "$W/diff.html" "$W/diff.dom" "$W/diff.log"; then
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

# 4. A tree of 1,000 processes (each /bin/true forked by one shell).
"$L" -o "$W/tree" -- sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done' \
	>/dev/null 2>&1
n=$(ls "$W/tree" | grep -c '\.dltrace$')
[ "$n" -ge 1001 ] || fail "tree: $n traces, expected 1001"
check_case tree "$W/tree"

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all report cases passed"
