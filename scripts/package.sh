#!/usr/bin/env bash
# Builds the release tarball, dltrace-VERSION-linux-ARCH.tar.gz: bin/
# (dltrace, dltrace-analyze), lib/ (libdltrace.so), share/doc/dltrace/.  It
# runs from wherever it is unpacked (the launcher finds the library at
# ../lib beside itself), usually a shared file system.
#
#   scripts/package.sh [OUTDIR]    the tarball into OUTDIR (default
#                                  ./dist), then tried (below)
#
# The build happens in a Debian 11 root (scripts/debian11.sh), so that the
# result needs nothing newer than glibc 2.31 (Ubuntu 20.04, RHEL 9 and
# newer; see docs/usage.md for older systems): a build on a newer system
# takes the newer symbol versions of the C library it was built against.
# The tarball is refused when any binary asks for a version above 2.31.
# Then it is unpacked and tried twice, on this machine and in the Debian 11
# root: a traced shell that starts a child and loads a library, whose
# verdict must be silent.  Needs what scripts/debian11.sh needs (root,
# debootstrap).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$REPO/dist}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
GLIBC_FLOOR=2.31

# ---- inside the root: build, install into a staging tree, pack -----------
if [ "${DLTRACE_PACKAGE_INSIDE:-}" = 1 ]; then
	B=build-package
	rm -rf "$B" "$B.stage"
	# A release: the user's compiler flags, no -Werror, no tests.
	cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DDLTRACE_TESTS=OFF \
		-DDLTRACE_WERROR=OFF -DCMAKE_INSTALL_PREFIX=/ >/dev/null
	cmake --build "$B" -j"$(nproc)" >/dev/null
	DESTDIR=$PWD/$B.stage cmake --install "$B" >/dev/null
	version=$(sed -n 's/^#define DLT_VERSION "\(.*\)"/\1/p' \
		"$B/include/dltrace/version.h")
	arch=$(uname -m)
	name=dltrace-$version-linux-$arch
	# The highest GLIBC_x.y any installed binary needs.
	need=$(objdump -T "$B.stage"/bin/* "$B.stage"/lib/*.so |
		sed -n 's/.*GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -V | tail -1)
	if [ "$(printf '%s\n%s\n' "$need" "$GLIBC_FLOOR" | sort -V |
		tail -1)" != "$GLIBC_FLOOR" ]; then
		echo "package: the binaries need GLIBC_$need, more than" \
			"$GLIBC_FLOOR" >&2
		exit 1
	fi
	rm -rf "$B.stage/$name"
	mkdir "$B.stage/$name"
	mv "$B.stage/bin" "$B.stage/lib" "$B.stage/share" "$B.stage/$name/"
	tar -C "$B.stage" -czf "$B/$name.tar.gz" --owner=0 --group=0 "$name"
	echo "$B/$name.tar.gz GLIBC_$need"
	exit 0
fi

# ---- the smoke test: unpack in DIR, trace a small tree ----------------------
if [ "${DLTRACE_PACKAGE_TRY:-}" != "" ]; then
	tarball=$DLTRACE_PACKAGE_TRY
	w=$(mktemp -d /tmp/dltrace-try.XXXXXX)
	tar -C "$w" -xzf "$tarball"
	d=$(echo "$w"/dltrace-*)
	"$d/bin/dltrace" --version
	# A shell that starts a child, which loads a library through the
	# dynamic loader: every part of the tool is used.
	"$d/bin/dltrace" -q -o "$w/traces" -- /bin/sh -c \
		'ls / >/dev/null && /bin/true' ||
		{
			echo "package: the traced command failed" >&2
			exit 1
		}
	n=$(ls "$w/traces" | wc -l)
	"$d/bin/dltrace-analyze" check --fail-on warning "$w/traces" ||
		{
			echo "package: check is not silent on a healthy run" >&2
			exit 1
		}
	[ "$n" -ge 2 ] || {
		echo "package: $n traces, expected one per process" >&2
		exit 1
	}
	echo "package: tried in $(ldd --version | head -1): $n traces, silent"
	rm -rf "$w"
	exit 0
fi

# ---- on the host: build in the root, copy out, try in both ----------------
echo "== building in Debian 11 (glibc $GLIBC_FLOOR)"
log=$(mktemp)
DLTRACE_BULLSEYE_RUN="DLTRACE_PACKAGE_INSIDE=1 scripts/package.sh" \
	"$REPO/scripts/debian11.sh" "$REPO" | tee "$log"
made=$(sed -n 's/^\(build-package\/dltrace-.*\.tar\.gz\) GLIBC_.*/\1/p' "$log")
rm -f "$log"
[ -n "$made" ] || {
	echo "package: no tarball was made" >&2
	exit 1
}
cp "$REPO/$made" "$OUT/"
tarball=$OUT/$(basename "$made")
echo "== $tarball"
echo "== trying it here"
DLTRACE_PACKAGE_TRY=$tarball "$REPO/scripts/package.sh"
echo "== trying it in Debian 11"
# The root sees the checkout as /src: the tarball goes there for the try.
cp "$tarball" "$REPO/build-package/"
DLTRACE_BULLSEYE_RUN="DLTRACE_PACKAGE_TRY=/src/build-package/$(basename "$tarball") scripts/package.sh" \
	"$REPO/scripts/debian11.sh" "$REPO"
echo "== $tarball: built on glibc $GLIBC_FLOOR, tried on both"
