#!/usr/bin/env bash
# Fuzzes the trace reader with libFuzzer (clang, libclang-rt-14-dev).
#
#   scripts/fuzz.sh [SECONDS]     default 600; new inputs go to the corpus
#
# The corpus (tests/fuzz/corpus) is seeded with real traces; every input
# that ever crashed is kept there and replayed by the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
CC=clang BUILD_DIR=build-fuzz BUILD_TYPE=Debug scripts/build.sh \
	-DDLTRACE_FUZZ=ON -DDLTRACE_TESTS=OFF
work=$(mktemp -d)
cp tests/fuzz/corpus/* "$work"/ 2>/dev/null || true
build-fuzz/bin/fuzz_reader -max_total_time="$secs" -max_len=262144 \
	-rss_limit_mb=1024 -timeout=10 -print_final_stats=1 \
	-artifact_prefix=tests/fuzz/corpus/crash- "$work" tests/fuzz/corpus
echo "fuzz: corpus now $(ls "$work" | wc -l) inputs in $work (not committed)"
