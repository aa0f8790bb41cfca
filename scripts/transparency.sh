#!/usr/bin/env bash
# The transparency suite (issue 27, part 4): a program must not be able to
# tell that it is traced.  Runs CPython's own regression tests for the parts
# of the runtime a tracer can disturb (signals, subprocesses, threads, fork,
# ptys, ctypes, faulthandler) on every CPython of the machine, in three
# modes, and compares the result of every test method:
#   plain    no LD_PRELOAD, no DLTRACE_* variable
#   traced   dltrace -q -o DIR -- python -m test ...
#   watched  the same with DLTRACE_WATCHDOG=1 (the stall watchdog's thread)
# A test whose result differs from plain is rerun alone, RERUNS times in
# each of the two modes: it is a real difference when no rerun of one mode
# gives a result that a rerun of the other gave, flaky otherwise (CPython's
# suite has timing-sensitive tests, and a 2-core machine shared with other
# jobs is slow in bursts).  Prints a table of the differences and exits 1
# when one is real; docs/transparency.md has the method and the results.
#
#   scripts/transparency.sh            every CPython, every module (long:
#                                      docs/transparency.md has the times)
#   scripts/transparency.sh --quick    test_signal and test_subprocess on
#                                      one CPython, plain and traced (the
#                                      ctest test e2e_transparency_quick)
#   --python PATH                      only this interpreter (repeatable)
#   --modules "test_x test_y"          only these modules
#   --modes "plain traced"             only these modes (plain first)
#
# Environment:
#   BUILD_DIR                   the build to test (build)
#   TRANSPARENCY_DIR            where runs and report.md go (default a new
#                               /tmp/dltrace-transparency.XXXXXX, kept)
#   TRANSPARENCY_RESUME=1       keep the module runs already in that
#                               directory (after an interrupted run)
#   TRANSPARENCY_TIMEOUT        per test module, seconds (300; 900 with
#                               test_multiprocessing_spawn)
#   TRANSPARENCY_RERUN_TIMEOUT  per test rerun alone, seconds (120)
#   TRANSPARENCY_RERUNS         reruns per mode (3)
#   TRANSPARENCY_RERUN_MAX      tests rerun per interpreter and mode (25;
#                               differences beyond count as real)
#   TRANSPARENCY_MP=1           also test_multiprocessing_spawn
#                               (docs/transparency.md has what it costs)
#   TRANSPARENCY_SYSTEM_PYTHON  Debian's interpreter (/usr/bin/python3);
#                               PYENV_ROOT (~/.pyenv) has pyenv's
#   TRANSPARENCY_KEEP_TRACES=1  keep the traced runs' trace directories
# Exits 77 when no CPython with its test suite is installed (Debian's:
# DLTRACE_TRANSPARENCY=1 scripts/install-deps.sh).  Run it nice'd on a
# shared machine: nice -n 19 scripts/transparency.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in
/*) ;;
*) BUILD_DIR=$ROOT/$BUILD_DIR ;;
esac
DLTRACE=$BUILD_DIR/bin/dltrace
ANALYZE=$BUILD_DIR/bin/dltrace-analyze
HELPER=$ROOT/tests/transparency/regrtest_results.py
# Per test module (regrtest kills the worker at 1.5 times that): the
# slowest modules take about 65 s plain (test_signal,
# test_multiprocessing_fork), and a module that hangs under the tracer
# should not cost much more.
# A test rerun alone gets RERUN_TIMEOUT.
TIMEOUT=${TRANSPARENCY_TIMEOUT:-}
RERUN_TIMEOUT=${TRANSPARENCY_RERUN_TIMEOUT:-120}
RERUNS=${TRANSPARENCY_RERUNS:-3}
RERUN_MAX=${TRANSPARENCY_RERUN_MAX:-25}
# Every resource except the network (nothing outside the machine) and the
# ones that only make tests slower or need hardware: largefile writes GBs,
# cpu is long CPU-bound loops, gui and audio need devices.
RESOURCES=all,-network,-urlfetch,-largefile,-cpu,-gui,-audio

log() { printf '%s\n' "$*" >&2; }
die() {
	log "transparency: $*"
	exit 2
}

quick=0
pythons=()
modules=""
modes="plain traced watched"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--python) pythons+=("$2") && shift ;;
	--modules) modules=$2 && shift ;;
	--modes) modes=$2 && shift ;;
	*) die "unknown argument $1 (see the head of $0)" ;;
	esac
	shift
done
[ "${modes%% *}" = plain ] || die "--modes must start with plain"
if [ ! -x "$DLTRACE" ] || [ ! -x "$ANALYZE" ]; then
	die "no $DLTRACE: build first (BUILD_DIR=$BUILD_DIR scripts/build.sh)"
fi
command -v python3 >/dev/null || die "python3 (for $HELPER) is not installed"

# The test modules.  test_multiprocessing_fork (about 65 s plain) is the
# start method where the tracer's threads and locks meet fork; _spawn
# (about 100 s more) is fork and exec of a fresh interpreter, which
# test_subprocess covers already: asked for only (docs/transparency.md).
if [ -z "$modules" ]; then
	if [ $quick = 1 ]; then
		modules="test_signal test_subprocess"
	else
		modules="test_signal test_subprocess test_threading test_os test_posix"
		modules+=" test_faulthandler test_ctypes test_pty test_selectors"
		modules+=" test_asyncio.test_subprocess test_multiprocessing_fork"
		[ "${TRANSPARENCY_MP:-0}" = 1 ] && modules+=" test_multiprocessing_spawn"
	fi
fi
[ $quick = 1 ] && [ "$modes" = "plain traced watched" ] && modes="plain traced"
if [ -z "$TIMEOUT" ]; then
	case $modules in
	*multiprocessing_spawn*) TIMEOUT=900 ;; # minutes, on a loaded machine
	*) TIMEOUT=300 ;;
	esac
fi

# An interpreter counts when its test package is installed: pyenv builds
# have one, Debian's python3 only with libpython3.11-testsuite.
test_dir() { # PYTHON -> its Lib/test, or nothing
	"$1" -c 'import os, sysconfig
d = os.path.join(sysconfig.get_paths()["stdlib"], "test")
print(d if os.path.isfile(os.path.join(d, "libregrtest", "main.py")) else "")' \
		2>/dev/null || true
}
if [ ${#pythons[@]} -eq 0 ]; then
	cands=()
	for minor in 8 9 10 11 12 13; do
		for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3."$minor".*/bin/python3."$minor"; do
			[ -x "$p" ] && cands+=("$p")
		done
	done
	cands+=("${TRANSPARENCY_SYSTEM_PYTHON:-/usr/bin/python3}")
	for p in "${cands[@]}"; do
		[ -x "$p" ] || continue
		if [ -z "$(test_dir "$p")" ] || ! "$p" -m test --help >/dev/null 2>&1; then
			log "transparency: $p has no test suite installed: left out"
			continue
		fi
		pythons+=("$p")
	done
	if [ $quick = 1 ] && [ ${#pythons[@]} -gt 0 ]; then
		# One interpreter: 3.12, whose subprocess uses vfork, if there.
		pick=${pythons[0]}
		for p in "${pythons[@]}"; do
			case $p in *3.12*) pick=$p ;; esac
		done
		pythons=("$pick")
	fi
fi
if [ ${#pythons[@]} -eq 0 ]; then
	echo "SKIP: no CPython with its test suite (pyenv's, or Debian's:" \
		"DLTRACE_TRANSPARENCY=1 scripts/install-deps.sh)"
	exit 77
fi

W=${TRANSPARENCY_DIR:-$(mktemp -d /tmp/dltrace-transparency.XXXXXX)}
mkdir -p "$W"
log "transparency: results in $W"

# Plain runs must see no trace of dltrace: no preload, no audit module, no
# DLTRACE_* left over from the caller's environment.
unset_env=(-u LD_PRELOAD -u LD_AUDIT)
while read -r v; do unset_env+=(-u "$v"); done < <(compgen -e | grep '^DLTRACE_' || true)

# run_regrtest PYTHON MODE DIR ARGS...: one regrtest run into DIR (out,
# junit.xml, results.json, wall, rc; trace/ and check.json when traced).
run_regrtest() {
	local py=$1 mode=$2 d=$3
	shift 3
	rm -rf "$d"
	mkdir -p "$d/tmp"
	# -j1: each module in a worker process, so that a module that kills
	# its process is reported (crashed) and the others still run.
	local cmd=("$py" -m test -j1 -v --timeout "$TIMEOUT" -u "$RESOURCES"
		--junit-xml "$d/junit.xml" "$@")
	# Past the per-module timeout regrtest ends the worker itself; this
	# one is for regrtest itself hanging.
	local outer=$((TIMEOUT * ($# + 1) + 300))
	local pre=(env "${unset_env[@]}" TMPDIR="$d/tmp")
	case $mode in
	plain) ;;
	traced) cmd=("$DLTRACE" -q -o "$d/trace" -- "${cmd[@]}") ;;
	watched) cmd=("$DLTRACE" -q -o "$d/trace" -- "${cmd[@]}")
		pre+=(DLTRACE_WATCHDOG=1) ;;
	*) die "unknown mode $mode" ;;
	esac
	local t0 rc=0
	t0=$(date +%s)
	(cd "$d/tmp" && timeout -k 30 "$outer" "${pre[@]}" "${cmd[@]}") \
		>"$d/out" 2>&1 </dev/null || rc=$?
	echo $(($(date +%s) - t0)) >"$d/wall"
	echo "$rc" >"$d/rc"
	# Processes of this run still there (a test's child that never ended:
	# regrtest before 3.12 kills only its worker at the timeout) are
	# counted and killed; they have this run's TMPDIR.
	local left=0 p
	for p in /proc/[0-9]*; do
		if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "TMPDIR=$d/tmp"; then
			kill -KILL "${p#/proc/}" 2>/dev/null && left=$((left + 1))
		fi
	done
	echo "$left" >"$d/left"
	python3 "$HELPER" parse "$d/out" "$d/junit.xml" "$d/results.json"
	if [ "$mode" != plain ]; then
		"$ANALYZE" check --json "$d/trace" >"$d/check.json" 2>"$d/check.err" || true
		python3 "$HELPER" traces "$d/trace" "$d/check.json" >"$d/traces"
		[ "${TRANSPARENCY_KEEP_TRACES:-0}" = 1 ] || rm -rf "$d/trace"
	fi
	rm -rf "$d/tmp"
}

# A module status for a worker that did not end by itself: it crashed,
# was killed, or timed out.
ended_early() {
	case $1 in
	passed* | failed* | skipped* | "env changed"* | "resource denied"*) return 1 ;;
	esac
	return 0
}

# rerun PYTHON MODE DIR MODULE ID: the outcome of one test run alone.
rerun() {
	local py=$1 mode=$2 d=$3 mod=$4 id=$5 match=()
	case $id in
	-) ;; # the whole module, with the module's timeout
	*.setUpModule | *.tearDownModule) ;;
	*.setUpClass | *.tearDownClass) match=(-m "${id%.*}.*") ;;
	*) match=(-m "$id") ;;
	esac
	# run_regrtest reads TIMEOUT: a test alone gets less.
	[ "$id" = - ] || local TIMEOUT=$RERUN_TIMEOUT
	# A plain rerun stands for every mode: done once.
	if [ "$mode" != plain ] || [ ! -f "$d/results.json" ]; then
		run_regrtest "$py" "$mode" "$d" "$mod" ${match[@]+"${match[@]}"}
	fi
	if [ "$id" = - ]; then
		python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["modules"].get(sys.argv[2], "missing"))' \
			"$d/results.json" "$mod"
	else
		python3 "$HELPER" outcome "$d/results.json" "$id"
	fi
}

real=0
compared=0
report=$W/report.md
: >"$report"
say() { printf '%s\n' "$*" | tee -a "$report"; }

for py in "${pythons[@]}"; do
	tag=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	case $py in /usr/bin/*) tag="$tag-debian" ;; esac
	tdir=$(test_dir "$py")
	mods=()
	missing_mods=""
	for m in $modules; do
		if [ -e "$tdir/${m//.//}.py" ] || [ -d "$tdir/${m//.//}" ]; then
			mods+=("$m")
		else
			log "transparency: $tag has no $m installed: left out"
			missing_mods+=" $m"
		fi
	done
	PW=$W/$tag
	mkdir -p "$PW"
	if [ ${#mods[@]} -eq 0 ]; then
		# regrtest with no module named runs the whole suite: never.
		say ""
		say "## CPython $tag ($py): none of the modules is installed: left out"
		continue
	fi
	compared=$((compared + 1))
	say ""
	say "## CPython $tag ($py)"
	say ""
	say "modules: ${mods[*]}${missing_mods:+ (not installed:$missing_mods)}"
	for mode in $modes; do
		# TRANSPARENCY_RESUME=1 with the TRANSPARENCY_DIR of an earlier
		# run keeps the module runs it finished (reruns are redone).
		if [ "${TRANSPARENCY_RESUME:-0}" = 1 ] && [ -f "$PW/$mode/results.json" ]; then
			log "transparency: $tag $mode: kept from the earlier run"
			continue
		fi
		log "transparency: $tag $mode: ${mods[*]}"
		run_regrtest "$py" "$mode" "$PW/$mode" "${mods[@]}"
	done
	rm -rf "$PW/rerun"

	say ""
	say "| mode | wall s | regrtest rc | modules | processes | traces | errors | warnings | left running |"
	say "|---|---|---|---|---|---|---|---|---|"
	for mode in $modes; do
		d=$PW/$mode
		procs="-" files="-" errs="-" warns="-"
		[ -f "$d/traces" ] && read -r procs files errs warns <"$d/traces"
		mstat=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["modules"]
print(", ".join("%s %s" % (k, v) for k, v in sorted(m.items())) or "none ran")' \
			"$d/results.json")
		say "| $mode | $(cat "$d/wall") | $(cat "$d/rc") | $mstat | $procs | $files | $errs | $warns | $(cat "$d/left" 2>/dev/null || echo 0) |"
	done
	for mode in $modes; do
		d=$PW/$mode
		[ -f "$d/traces" ] || continue
		if [ "$(wc -l <"$d/traces")" -gt 1 ]; then
			say ""
			say "$mode: dltrace-analyze check said (count, severity, code, message):"
			tail -n +2 "$d/traces" | head -20 | sed 's/^/    /' | tee -a "$report"
		else
			say ""
			say "$mode: dltrace-analyze check: no warning or error"
		fi
	done

	# The differences, each rerun alone in plain and in its mode.
	say ""
	say "| mode | module | test | plain | in mode | reruns plain | reruns in mode | verdict |"
	say "|---|---|---|---|---|---|---|---|"
	ndiff=0
	for mode in $modes; do
		[ "$mode" = plain ] && continue
		python3 "$HELPER" diff "$PW/plain/results.json" "$PW/$mode/results.json" \
			>"$PW/$mode.diff"
		n=0
		real_mods=" "
		flaky_mods=" "
		# Tests first, so that a module's line can say whether any of its
		# tests differed for real.
		while IFS=$'\t' read -r kind mod id a b; do
			[ "$kind" = test ] || continue
			ndiff=$((ndiff + 1))
			n=$((n + 1))
			if [ $n -gt "$RERUN_MAX" ]; then
				say "| $mode | $mod | $id | $a | $b | - | - | REAL (not rerun: over $RERUN_MAX) |"
				real=1
				real_mods+="$mod "
				continue
			fi
			rp="" rmode=""
			for k in $(seq "$RERUNS"); do
				log "transparency: $tag rerun $k/$RERUNS of $id"
				rp+="$(rerun "$py" plain "$PW/rerun/plain-$id-$k" "$mod" "$id") "
				rmode+="$(rerun "$py" "$mode" "$PW/rerun/$mode-$id-$k" "$mod" "$id") "
			done
			verdict=$(python3 -c 'import sys
a, b = set(sys.argv[1].split()), set(sys.argv[2].split())
if not a & b:
    print("REAL")
elif a == b == {sys.argv[3]}:
    print("flaky: not reproduced alone")
else:
    print("flaky")' "$rp" "$rmode" "$a")
			if [ "$verdict" = REAL ]; then
				real=1
				real_mods+="$mod "
			else
				flaky_mods+="$mod "
			fi
			say "| $mode | $mod | $id | $a | $b | ${rp% } | ${rmode% } | $verdict |"
		done <"$PW/$mode.diff"
		while IFS=$'\t' read -r kind mod id a b; do
			[ "$kind" = module ] || continue
			ndiff=$((ndiff + 1))
			rp="" rmode=""
			if [[ $real_mods == *" $mod "* ]]; then
				verdict="REAL (a test above)"
			elif [[ $flaky_mods == *" $mod "* ]] && ! ended_early "$b"; then
				verdict="flaky (its tests above)"
			else
				# No test of it differs for real, yet the module did (an
				# env change, or a worker that died in the module run but
				# not when its test ran alone: state left by the tests
				# before it): the module is rerun whole.
				rp="" rmode=""
				for k in $(seq "$RERUNS"); do
					log "transparency: $tag rerun $k/$RERUNS of $mod, whole"
					rp+="$(rerun "$py" plain "$PW/rerun/plain-$mod-whole-$k" "$mod" -);"
					rmode+="$(rerun "$py" "$mode" "$PW/rerun/$mode-$mod-whole-$k" "$mod" -);"
				done
				verdict=$(python3 -c 'import sys
a, b = set(sys.argv[1].split(";")[:-1]), set(sys.argv[2].split(";")[:-1])
print("flaky (module rerun)" if a & b else "REAL (module rerun)")' "$rp" "$rmode")
				case $verdict in REAL*) real=1 ;; esac
				rp=${rp%;} rmode=${rmode%;}
			fi
			say "| $mode | $mod | (module) | $a | $b | ${rp:-} | ${rmode:-} | $verdict |"
		done <"$PW/$mode.diff"
	done
	[ $ndiff -gt 0 ] || say "| all | | no difference | | | | | |"
	# The tests that ran: a module with no result at all is not a pass.
	ntests=$(python3 -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["tests"]))' "$PW/plain/results.json")
	say ""
	say "$ntests test results compared per mode"
	if [ "$ntests" -eq 0 ]; then
		say "no test result in the plain run: see $PW/plain/out"
		real=1
	fi
done

say ""
if [ $compared = 0 ]; then
	say "SKIP: no interpreter had any of the modules ($modules)"
	exit 77
fi
if [ $real = 1 ]; then
	say "transparency: FAILED: a traced run differs from the plain one (table above; runs in $W)"
	exit 1
fi
say "transparency: every test gave the same result plain and traced (runs in $W)"
