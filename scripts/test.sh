#!/usr/bin/env bash
# Builds dltrace and runs the whole test suite:
#   1. clang-format check of every C file, and every dlt_ name defined
#      in one file (scripts/check-names.sh);
#   2. the normal build and all tests (unit and end-to-end), with the ABI
#      checks required where the CUDA, cuDNN and NCCL headers are;
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

# Where the CUDA, cuDNN and NCCL headers are installed, the ABI checks
# (tests/test_gpu_abi.c) must compile against them: missing headers are
# then a configure error, not a skipped test.
gpu=()
inc=${CUDA_HOME:-/usr/local/cuda}/include
if [ -f "$inc/cudnn.h" ] && [ -f "$inc/nccl.h" ] &&
	[ -f "$inc/cuda_runtime_api.h" ]; then
	gpu=(-DDLTRACE_REQUIRE_GPU_HEADERS=ON)
fi

echo "== build"
BUILD_DIR=build scripts/build.sh ${gpu[@]+"${gpu[@]}"}
echo "== tests"
ctest --test-dir build --output-on-failure -j2

echo "== sanitizer build (analyzer and unit tests)"
BUILD_DIR=build-asan BUILD_TYPE=Debug scripts/build.sh -DDLTRACE_SANITIZE=ON \
	${gpu[@]+"${gpu[@]}"}
ctest --test-dir build-asan --output-on-failure -L unit -j2
if command -v clang >/dev/null; then
	echo "== fuzz: replay the corpus, then 30 s of new inputs per target"
	scripts/fuzz.sh 30
else
	echo "== fuzz: skipped (no clang; scripts/install-deps.sh installs it)"
fi
echo "== all tests passed"
