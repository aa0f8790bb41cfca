#!/usr/bin/env bash
# From a fresh clone: install what is missing, build, and run dltrace on the
# bundled example (examples/demo), which reproduces two classic failures:
#   - a stale libdemo.so.1 on LD_LIBRARY_PATH shadows the copy the program
#     ships in its RUNPATH (pytorch#80637);
#   - a plugin's dependency sits in a directory the loader never searches
#     (faster-whisper#297).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# A user's build: a newer compiler's new warning must not stop it.
DLTRACE_WERROR=OFF scripts/build.sh
B=$PWD/build
D=$B/examples/demo
OUT=$(mktemp -d /tmp/dltrace-demo.XXXXXX)
echo
echo "== running: LD_LIBRARY_PATH=$D/system dltrace -o $OUT -- app plugins/libplugin.so"
set +e
LD_LIBRARY_PATH=$D/system "$B/bin/dltrace" -o "$OUT" -- "$D/app" \
	"$D/plugins/libplugin.so"
rc=$?
set -e
echo "(app exited with $rc)"
echo
echo "== dltrace-analyze check $OUT  (findings, evidence, fixes)"
"$B/bin/dltrace-analyze" check "$OUT" || true
echo
echo "== dltrace-analyze libs $OUT  (the demo's libraries, and why)"
"$B/bin/dltrace-analyze" libs "$OUT" | grep -E -A6 'libdemo|libhelper|libplugin' |
	grep -v -E '^\s*$' | head -24
echo
echo "Traces: $OUT"
