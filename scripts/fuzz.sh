#!/usr/bin/env bash
# Fuzzes dltrace's trace handling with libFuzzer (clang, libclang-rt-14-dev):
#   fuzz_reader    the trace reader alone
#   fuzz_analyze   every dltrace-analyze command and the launcher's verdicts,
#                  on one to three traces cut from the input
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]   default 600 s per target, all
#
# Each target first runs the whole corpus (tests/fuzz/corpus: real traces
# from the test suite, compacted by tests/fuzz/compact.py, and every input
# that ever crashed), then mutates for SECONDS.  A crash, a sanitizer report,
# a run over 10 s, more than 2 GiB of RSS, one allocation over 256 MiB or
# (fuzz_analyze) more memory held at once than the input justifies stops
# the run and leaves the input as tests/fuzz/corpus/crash-<sha1>: fix the
# bug, keep the file; the test suite replays the corpus (unit_fuzz_*).
# New inputs go to a scratch copy of the corpus, not committed; to keep the
# ones that add coverage:
#   build-fuzz/bin/fuzz_analyze -merge=1 tests/fuzz/corpus SCRATCH/analyze
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(reader analyze)
CC=clang BUILD_DIR=build-fuzz BUILD_TYPE=Debug scripts/build.sh \
	-DDLTRACE_FUZZ=ON -DDLTRACE_TESTS=OFF
work=$(mktemp -d)
for t in "${targets[@]}"; do
	case $t in
	reader) maxlen=262144 ;;
	# Every command loads every trace: large inputs only slow it down.
	analyze) maxlen=65536 ;;
	*)
		echo "fuzz: unknown target $t" >&2
		exit 2
		;;
	esac
	mkdir -p "$work/$t"
	cp tests/fuzz/corpus/* "$work/$t"/
	echo "== fuzz_$t: $secs s"
	build-fuzz/bin/fuzz_"$t" -max_total_time="$secs" -max_len="$maxlen" \
		-rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 \
		-print_final_stats=1 -artifact_prefix=tests/fuzz/corpus/crash- \
		"$work/$t"
	echo "fuzz_$t: corpus now $(ls "$work/$t" | wc -l) inputs in" \
		"$work/$t (not committed)"
done
