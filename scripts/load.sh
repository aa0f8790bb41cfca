#!/usr/bin/env bash
# The load test at full length: 64 threads of one program record marks as
# fast as they can for SECONDS (default 60), the program is SIGKILLed, and
# the trace must validate: read to its end without a problem, every
# thread's marks in order with consecutive sequence numbers, the kill
# recorded.  The test suite runs the same test for 3 s (e2e_load).
#
#   scripts/load.sh [SECONDS]
#
# The trace grows by hundreds of MiB per second of run, up to
# DLT_LOAD_MAX_SIZE (default 8G, the writer's own ceiling), in
# build/tests/tmp; it is deleted when the test passes.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
BUILD_DIR=${BUILD_DIR:-build}
BUILD_DIR=$BUILD_DIR scripts/build.sh -DDLTRACE_TESTS=ON
DLT_LOAD_SECONDS=$secs DLT_LOAD_MAX_SIZE=${DLT_LOAD_MAX_SIZE:-8G} \
	"$BUILD_DIR"/bin/test_e2e load
