#!/usr/bin/env bash
# The fault corpus (issue 29, part 4): every fault kind of tests/corpus/
# under every launcher it applies to (mp.spawn, torchrun, a shell's env
# launch, one plain rank, the fake NCCL), each run end to end under
# `dltrace --hang-timeout` and judged against the culprit, cause and
# Python line it declares; prints the table and says how long it took.
#
#   scripts/corpus.sh                  the whole corpus (about 12 minutes
#                                      on 2 cores; docs/hangs.md has the time)
#   scripts/corpus.sh --ci             the CI subset (ctest corpus_ci)
#   scripts/corpus.sh --write-docs     also rewrite the table of
#                                      docs/hangs.md ("Accuracy on the
#                                      fault corpus")
#   other options go to tests/corpus/run.py (--kind K, --launcher L,
#   --keep, --results DIR; run.py --help)
#
# Environment: BUILD_DIR, the built tree (build).  Needs Debian's
# python3-torch on /usr/bin/python3 (cases skip without it), root for the
# out-of-memory case's memory cgroup.  Exits 1 when a required case is
# wrong.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
args=()
for a in "$@"; do
	if [ "$a" = --write-docs ]; then
		args+=(--write-docs docs/hangs.md)
	else
		args+=("$a")
	fi
done
start=$(date +%s)
python3 tests/corpus/run.py --build "$BUILD_DIR" "${args[@]}"
rc=$?
took=$(($(date +%s) - start))
printf 'corpus: %d min %02d s in all (exit %d)\n' $((took / 60)) $((took % 60)) "$rc"
exit "$rc"
