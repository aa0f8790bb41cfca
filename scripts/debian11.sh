#!/usr/bin/env bash
# Builds dltrace and runs its tests in a Debian 11 (bullseye) chroot: glibc
# 2.31, CMake 3.18, GCC 10, CUnit 2.1-3 -- the user space of Ubuntu 20.04
# and of many GPU clusters' login and compute nodes.  A build on Debian 12
# (glibc 2.36) may use functions and symbol versions that such a node does
# not have; this is where that shows.
#
#   scripts/debian11.sh [REPO]         build REPO (default: this checkout)
#                                      into REPO/build-bullseye and run ctest
#   CTEST_ARGS="-L unit" scripts/...   arguments for ctest (default: all)
#   DLTRACE_BULLSEYE_ROOT=DIR          where the chroot lives (default
#                                      /var/cache/dltrace/bullseye); made
#                                      once with debootstrap, then reused
#   DLTRACE_DEBIAN_MIRROR=URL          mirror for debootstrap and apt
#   BUILD_DIR=NAME                     build dir inside REPO
#                                      (default build-bullseye, or
#                                      build-bullseye-ARCH)
#   DLTRACE_BULLSEYE_RUN='CMD'         run CMD (sh -c, in /src, as the
#                                      checkout's owner) instead of the
#                                      build and ctest: scripts/package.sh
#                                      builds the release tarball this way
#   DLTRACE_BULLSEYE_ARCH=arm64        a root of another architecture,
#                                      run through qemu-user-static's
#                                      binfmt_misc entry (the build too:
#                                      minutes); default the host's
#
# Needs root (debootstrap, chroot, mount) and debootstrap on the host
# (Debian: apt-get install debootstrap).  The checkout is bind-mounted at
# /src inside the chroot; the build and the tests run there as the owner of
# the checkout, so the build dir is not left owned by root.  Python3-torch is
# not installed: the torch tests skip (exit 77) without it.
set -euo pipefail

REPO=$(cd "${1:-$(dirname "$0")/..}" && pwd)
HOST_ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
ARCH=${DLTRACE_BULLSEYE_ARCH:-$HOST_ARCH}
if [ "$ARCH" = "$HOST_ARCH" ]; then
	ROOT=${DLTRACE_BULLSEYE_ROOT:-/var/cache/dltrace/bullseye}
	BUILD_DIR=${BUILD_DIR:-build-bullseye}
else
	ROOT=${DLTRACE_BULLSEYE_ROOT:-/var/cache/dltrace/bullseye-$ARCH}
	BUILD_DIR=${BUILD_DIR:-build-bullseye-$ARCH}
fi
MIRROR=${DLTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What scripts/build.sh and ctest need.  No clang: the fuzz targets are not
# part of ctest (their corpus replay builds with gcc), and bullseye's clang 11
# would only matter for scripts/fuzz.sh.  No clang-format: bullseye's 11
# formats differently from the 14 the style check is written against.
PKGS=(cmake make gcc libc6-dev libcunit1-dev libunwind-dev python3 binutils
      file libdw-dev libelf-dev)

if [ "$(id -u)" -ne 0 ]; then
	echo "debian11: needs root (debootstrap, chroot, mount)" >&2
	exit 1
fi
if [ ! -f "$REPO/CMakeLists.txt" ] || [ ! -x "$REPO/scripts/build.sh" ]; then
	echo "debian11: $REPO is not a dltrace checkout" >&2
	exit 1
fi

# Run the rest in a mount namespace of its own: the mounts below then go
# away with this process even if it is killed with SIGKILL and the trap never
# runs, and they never show in the host's mount table.
if [ -z "${DLTRACE_IN_NS:-}" ]; then
	export DLTRACE_IN_NS=1
	exec unshare --mount --propagation private -- "$0" "$REPO"
fi

t0=$SECONDS
phase() { # NAME START: one line with how long a phase took
	echo "debian11: $1 took $((SECONDS - $2)) s"
}

# ---------------------------------------------------------------------------
# The root, made once.  debootstrap writes into ROOT.tmp and the rename
# happens only when it succeeded, so an interrupted run never leaves a half
# root that later runs would take for a good one.
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
	command -v debootstrap >/dev/null || {
		echo "debian11: debootstrap missing (apt-get install debootstrap)" >&2
		exit 1
	}
	t=$SECONDS
	rm -rf "$ROOT.tmp"
	mkdir -p "$(dirname "$ROOT")"
	echo "debian11: creating $ROOT (debootstrap bullseye $ARCH, minutes)"
	# Another architecture: debootstrap runs the second stage through
	# binfmt_misc (qemu-user-static), which must be enabled.
	debootstrap --variant=minbase --arch="$ARCH" bullseye "$ROOT.tmp" \
		"$MIRROR" \
		>"$ROOT.debootstrap.log" 2>&1 || {
		echo "debian11: debootstrap failed; see $ROOT.debootstrap.log" >&2
		exit 1
	}
	mv "$ROOT.tmp" "$ROOT"
	phase "chroot creation" "$t"
fi

if ! chroot "$ROOT" /bin/true; then
	echo "debian11: cannot run the $ARCH root's programs (for another" \
		"architecture: apt-get install qemu-user-static binfmt-support)" >&2
	exit 1
fi

# ---------------------------------------------------------------------------
# Mounts (scripts/lib/chroot.sh): the checkout at /src.
# shellcheck source=lib/chroot.sh
. "$REPO/scripts/lib/chroot.sh"
chroot_mounts "$ROOT" "$REPO" /src

in_root() { # run a command in the chroot with a clean environment
	env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
		HOME=/tmp LANG=C.UTF-8 TERM="${TERM:-dumb}" \
		DEBIAN_FRONTEND=noninteractive chroot "$@"
}

# ---------------------------------------------------------------------------
# Build and test dependencies: installed only when one is missing, so a
# second run costs nothing here.
chroot_install "$ROOT" "dependency install" "${PKGS[@]}"
in_root "$ROOT" sh -c 'ldd --version | head -1; cmake --version | head -1;
	gcc --version | head -1'

# ---------------------------------------------------------------------------
# Another job in the root (scripts/package.sh).
owner=$(stat -c %u:%g "$REPO")
if [ -n "${DLTRACE_BULLSEYE_RUN:-}" ]; then
	t=$SECONDS
	rc=0
	in_root --userspec="$owner" "$ROOT" sh -c \
		"cd /src && $DLTRACE_BULLSEYE_RUN" || rc=$?
	phase "$DLTRACE_BULLSEYE_RUN" "$t"
	exit "$rc"
fi

# ---------------------------------------------------------------------------
# Build and test as the owner of the checkout.  A separate build dir: the
# host's build/ is configured with the host's CMake and compiler.
t=$SECONDS
in_root --userspec="$owner" "$ROOT" env BUILD_DIR="$BUILD_DIR" \
	/src/scripts/build.sh || {
	phase "build (failed)" "$t"
	exit 1
}
phase build "$t"
t=$SECONDS
rc=0
# CTest 3.18 has no --test-dir (3.20+): run it from the build dir.
# shellcheck disable=SC2086 # CTEST_ARGS is a list of words on purpose
in_root --userspec="$owner" "$ROOT" sh -c "cd /src/$BUILD_DIR &&
	ctest --output-on-failure -j$(nproc) ${CTEST_ARGS:-}" || rc=$?
phase tests "$t"
phase "whole run" "$t0"
exit "$rc"
