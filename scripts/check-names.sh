#!/usr/bin/env bash
# Fails when a dlt_ function or variable is defined in more than one file
# of the product (the shim, tracer, common code, analyzer and launcher;
# tests and fixtures have names of their own).  Two definitions of one name
# in two binaries, or two file-local ones in one, make grep, tags and
# backtraces point at the wrong code: a name says its layer instead
# (docs/design.md, "Names").  Definitions in #if arms of one file count
# once.  Needs Universal Ctags (scripts/install-deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
	echo "check-names: Universal Ctags is missing (scripts/install-deps.sh)" >&2
	exit 1
fi
files=$(git ls-files '*.c' '*.h' | grep -v '^tests/')
# A file built instead of another where a library is missing (the same
# functions: analyzer/stacks/unwind_none.c) says so in a line
# "check-names: instead of PATH": its definitions count as that file's,
# like the arms of an #if.
alt=""
for f in $(grep -l 'check-names: instead of ' $files || true); do
	p=$(sed -n 's/.*check-names: instead of \([^ ]*\).*/\1/p' "$f" | head -n1)
	alt+="s|^\(dlt_[^ ]*\) $f\$|\1 $p|;"
done
dups=$(ctags -x --c-kinds=fv --extras=+F $files 2>/dev/null |
	awk '$1 ~ /^dlt_/ { print $1, $4 }' | sed "$alt" | sort -u |
	awk '{ n[$1]++; w[$1] = w[$1] " " $2 }
	     END { for (k in n) if (n[k] > 1) print k ":" w[k] }' | sort)
if [ -n "$dups" ]; then
	echo "check-names: dlt_ names defined in more than one file:" >&2
	echo "$dups" | sed 's/^/  /' >&2
	exit 1
fi
echo "check-names: every dlt_ name is defined once ($(echo "$files" | wc -l) files)"
