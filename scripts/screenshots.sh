#!/usr/bin/env bash
# Regenerates the report's screenshots in docs/ from the browser test's
# own cases (tests/report_browser.sh), each the first screen of a
# 1280x900 window:
#
#   docs/report-demo.png   the quick-start demo (a library not found, one
#                          shadowed)
#   docs/report-hang.png   a hung two-rank gloo job (rank 1 asleep before
#                          all_reduce)
#   docs/report-crash.png  a DataLoader worker dead of SIGSEGV
#
#   scripts/screenshots.sh [BUILD_DIR]      (default: build)
#
# The last two need Debian's python3-torch (DLT_TEST_PYTHON names another
# Python); the test's checks run too, and a failure is reported.  Look at
# the images before committing them.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
DLT_SCREENSHOTS=docs exec tests/report_browser.sh "$B"
