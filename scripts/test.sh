#!/usr/bin/env bash
# Builds dltrace and runs the whole test suite:
#   1. clang-format check of every C file, and every dlt_ name defined
#      in one file (scripts/check-names.sh);
#   2. the normal build and all tests (unit and end-to-end);
#   3. an ASan+UBSan build of the analyzer and unit tests, and those tests;
#   4. a short libFuzzer run of each fuzz target (scripts/fuzz.sh: the
#      reader, and every analyzer command), 30 s each.
# The injected library is never sanitized (LD_PRELOAD and ASan do not mix).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== clang-format"
bad=$(git ls-files '*.c' '*.h' | xargs -r clang-format --dry-run -Werror 2>&1 |
	grep -o '^[^:]*:' | sort -u || true)
if [ -n "$bad" ]; then
	echo "not clang-formatted: $bad" >&2
	exit 1
fi

echo "== names: every dlt_ name defined once"
scripts/check-names.sh

echo "== build"
BUILD_DIR=build scripts/build.sh
echo "== tests"
ctest --test-dir build --output-on-failure -j2

echo "== sanitizer build (analyzer and unit tests)"
BUILD_DIR=build-asan BUILD_TYPE=Debug scripts/build.sh -DDLTRACE_SANITIZE=ON
ctest --test-dir build-asan --output-on-failure -L unit -j2
if command -v clang >/dev/null; then
	echo "== fuzz: replay the corpus, then 30 s of new inputs per target"
	scripts/fuzz.sh 30
else
	echo "== fuzz: skipped (no clang; scripts/install-deps.sh installs it)"
fi
echo "== all tests passed"
