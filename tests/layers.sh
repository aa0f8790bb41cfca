#!/usr/bin/env bash
# The analyzer's layers (docs/design.md, "The house"): a folder of
# analyzer/ uses only the folders below it.  Fails when a file includes a
# header of a folder above its own, includes an analyzer header by a
# relative path, or lives in a folder the list does not know.
#
#   tests/layers.sh SOURCE_DIR LAYER...    (bottom first; CMakeLists.txt
#                                          passes its list, then cmds)
set -euo pipefail
src=$1
shift
declare -A rank where
bad=0
i=0
for l in "$@"; do
	rank[$l]=$i
	i=$((i + 1))
done
# Data tables (included by the rules) sit below everything.
rank[data]=-1
for d in "$src"/analyzer/*/; do
	l=$(basename "$d")
	if [[ -z "${rank[$l]+x}" ]]; then
		echo "analyzer/$l: a folder that is in no layer" >&2
		bad=1
	fi
done
for l in data "$@"; do
	for h in "$src/analyzer/$l"/*.h "$src/analyzer/$l"/*.def; do
		[[ -e $h ]] || continue
		b=$(basename "$h")
		if [[ -n "${where[$b]+x}" ]]; then
			echo "analyzer/$l/$b: a second header of that name" \
				"(analyzer/${where[$b]}/$b)" >&2
			bad=1
		fi
		where[$b]=$l
	done
done
for l in "$@"; do
	for f in "$src/analyzer/$l"/*.[ch]; do
		[[ -e $f ]] || continue
		while IFS= read -r inc; do
			if [[ $inc == */* ]]; then
				[[ $inc == dltrace/* ]] && continue
				echo "analyzer/$l/$(basename "$f"): includes" \
					"\"$inc\" by a path" >&2
				bad=1
				continue
			fi
			h=${where[$inc]-}
			[[ -z $h ]] && continue # common/, the build's, a system one
			if ((rank[$h] > rank[$l])); then
				echo "analyzer/$l/$(basename "$f"): includes" \
					"$h/$inc, a layer above $l" >&2
				bad=1
			fi
		done < <(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	done
done
if ((bad)); then
	echo "the analyzer's layers, bottom first: $*" >&2
	exit 1
fi
echo "layers kept: $*"
