#!/usr/bin/env bash
# Configures and builds dltrace into build/ (or $BUILD_DIR), for developers
# and CI: warnings are errors unless DLTRACE_WERROR=OFF, and elfutils' libdw
# (the analyzer's unwinder) is required unless DLTRACE_REQUIRE_LIBDW=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} \
	-DDLTRACE_WERROR=${DLTRACE_WERROR:-ON} \
	-DDLTRACE_REQUIRE_LIBDW=${DLTRACE_REQUIRE_LIBDW:-ON} "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
