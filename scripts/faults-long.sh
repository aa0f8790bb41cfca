#!/usr/bin/env bash
# The long versions of the fault tests (tests/test_faults.c); the suite runs
# the short ones.
#
#   scripts/faults-long.sh [REPS [SCALE]]
#
# REPS (default 500): runs of the SIGKILL test, each killed at a random
# moment, every trace read back each time.  SCALE (default 5): factor on the
# counts of three suites (dlcycles: 10000 dlopen/dlclose cycles; signals:
# 2 million marks per thread; spawn: 200 forks).  DLT_FAULTS_SEED repeats a
# run of the SIGKILL test.  Builds into build/ first.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-500}
scale=${2:-5}
BUILD_DIR=build scripts/build.sh -DDLTRACE_TESTS=ON
export DLT_FAULTS_REPS=$reps DLT_FAULTS_SCALE=$scale
status=0
for suite in dir fsize nofile closefds spawn static signals threads dlcycles \
	exit sigkill; do
	echo "== $suite"
	start=$(date +%s)
	rc=0
	build/bin/test_faults "$suite" || rc=$?
	# 77: the suite cannot run here (it said why).
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		status=1
	fi
	echo "== $suite: $(($(date +%s) - start)) s"
done
[ "$status" -eq 0 ] && echo "== faults-long: all passed"
exit "$status"
