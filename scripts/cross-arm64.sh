#!/usr/bin/env bash
# Cross-builds dltrace for aarch64 (arm64: Grace Hopper, Graviton nodes) on
# an x86-64 Debian 12 host and runs its tests under qemu-user.
#
#   scripts/cross-arm64.sh [REPO]      build REPO (default: this checkout)
#                                      into REPO/build-arm64 and test it
#   BUILD_DIR=NAME                     build dir inside REPO (build-arm64)
#   CTEST_ARGS="-R e2e_fork"           arguments for ctest (default: all)
#   DLTRACE_ARM64_TESTS=root           (default as root) the tests run in an
#                                      arm64 Debian root, where /bin/sh and
#                                      python3 are arm64 programs too
#   DLTRACE_ARM64_TESTS=host           the tests run on the host (qemu for
#                                      each arm64 program); tests that start
#                                      the host's x86-64 /bin/sh, /bin/true
#                                      or python3 under dltrace fail there:
#                                      the arm64 library cannot be loaded
#                                      into them.  Default CTEST_ARGS: -L unit
#   DLTRACE_ARM64_TESTS=none           build only
#   DLTRACE_ARM64_ROOT=DIR             the arm64 root (default
#                                      /var/cache/dltrace/bookworm-arm64),
#                                      made once with debootstrap
#   DLTRACE_ARM64_SUITE=bookworm       its Debian release: the same glibc as
#                                      the host's libc6-dev:arm64 or newer
#
# Host packages (Debian 12):
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install gcc-aarch64-linux-gnu qemu-user-static binfmt-support \
#       libc6-dev:arm64 libcunit1-dev:arm64 debootstrap
# The tests start programs themselves (the launcher, fixtures), which the
# kernel runs through qemu only with the binfmt_misc entry for aarch64; as
# root this script enables it when it is not.
set -euo pipefail

REPO=$(cd "${1:-$(dirname "$0")/..}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLCHAIN=${DLTRACE_TOOLCHAIN:-$HERE/cmake/aarch64-linux-gnu.cmake}
BUILD_DIR=${BUILD_DIR:-build-arm64}
ROOT=${DLTRACE_ARM64_ROOT:-/var/cache/dltrace/bookworm-arm64}
SUITE=${DLTRACE_ARM64_SUITE:-bookworm}
MIRROR=${DLTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ "$(id -u)" -eq 0 ]; then
	MODE=${DLTRACE_ARM64_TESTS:-root}
else
	MODE=${DLTRACE_ARM64_TESTS:-host}
fi
# What the tests need in the root: ctest, python3 (format check and the
# python subprocess tests), CUnit's run-time library, file(1).
ROOT_PKGS=(cmake python3 libcunit1 file binutils)

# The root's mounts are made in a mount namespace of its own: they go away
# with this process even if it is killed before its trap runs, and never
# show in the host's mount table.
if [ "$MODE" = root ] && [ -z "${DLTRACE_IN_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || {
		echo "cross-arm64: DLTRACE_ARM64_TESTS=root needs root" >&2
		exit 1
	}
	export DLTRACE_IN_NS=1
	exec unshare --mount --propagation private -- "$0" "$REPO"
fi

say() { echo "cross-arm64: $*"; }
die() {
	echo "cross-arm64: $*" >&2
	exit 1
}
phase() { say "$1 took $((SECONDS - $2)) s"; }

# ---------------------------------------------------------------------------
# Tools and the target's libraries, with what installs them.
if [ ! -f "$REPO/CMakeLists.txt" ] || [ ! -x "$REPO/scripts/build.sh" ]; then
	die "$REPO is not a dltrace checkout"
fi
[ -f "$TOOLCHAIN" ] || die "no toolchain file $TOOLCHAIN"
command -v aarch64-linux-gnu-gcc >/dev/null ||
	die "no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu)"
[ -f /usr/lib/aarch64-linux-gnu/libcunit.so ] ||
	say "warning: no libcunit1-dev:arm64: tests disabled" \
		"(dpkg --add-architecture arm64; apt-get install libcunit1-dev:arm64)"

# ---------------------------------------------------------------------------
# binfmt_misc: without it an arm64 program that a test starts fails with
# "Exec format error".  The F flag (qemu-user-static's default) makes the
# kernel open qemu when the entry is registered, so it works in a chroot
# that has no qemu of its own.
binfmt_ok() {
	[ -r /proc/sys/fs/binfmt_misc/qemu-aarch64 ] &&
		head -1 /proc/sys/fs/binfmt_misc/qemu-aarch64 | grep -qx enabled
}
if [ "$MODE" != none ] && ! binfmt_ok; then
	if [ "$(id -u)" -eq 0 ] && command -v update-binfmts >/dev/null; then
		[ -e /proc/sys/fs/binfmt_misc/register ] ||
			mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
		update-binfmts --enable qemu-aarch64
	fi
	binfmt_ok || die "the kernel does not run aarch64 programs: apt-get" \
		"install qemu-user-static binfmt-support, then (as root)" \
		"update-binfmts --enable qemu-aarch64"
fi
if [ "$MODE" = root ] &&
	! grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
	die "the qemu-aarch64 binfmt entry lacks the F flag: it cannot run" \
		"programs in a chroot (use DLTRACE_ARM64_TESTS=host)"
fi

# ---------------------------------------------------------------------------
# The cross build, with the host's compiler speed.  A build dir of its own:
# the toolchain file is read only when a build dir is configured first.
t=$SECONDS
BUILD_DIR="$BUILD_DIR" "$REPO/scripts/build.sh" \
	-DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" || {
	phase "cross build (failed)" "$t"
	exit 1
}
phase "cross build" "$t"
file -b "$REPO/$BUILD_DIR/lib/libdltrace.so" | cut -d, -f1-2

case "$MODE" in
none)
	exit 0
	;;
host)
	t=$SECONDS
	rc=0
	# shellcheck disable=SC2086 # CTEST_ARGS is a list of words on purpose
	DLTRACE_TEST_EMULATED=qemu-user \
		ctest --test-dir "$REPO/$BUILD_DIR" --output-on-failure \
		-j"$(nproc)" ${CTEST_ARGS:--L unit} || rc=$?
	phase "tests under qemu (host)" "$t"
	exit "$rc"
	;;
root) ;;
*) die "DLTRACE_ARM64_TESTS is root, host or none, not $MODE" ;;
esac

# ---------------------------------------------------------------------------
# The arm64 root, made once (debootstrap runs its second stage through
# binfmt_misc).  Into ROOT.tmp first: an interrupted run leaves nothing a
# later run would take for a good root.
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
	command -v debootstrap >/dev/null ||
		die "debootstrap missing (apt-get install debootstrap)"
	t=$SECONDS
	rm -rf "$ROOT.tmp"
	mkdir -p "$(dirname "$ROOT")"
	say "creating $ROOT (debootstrap --arch=arm64 $SUITE, minutes)"
	debootstrap --variant=minbase --arch=arm64 \
		--include="$(
			IFS=,
			echo "${ROOT_PKGS[*]}"
		)" "$SUITE" "$ROOT.tmp" "$MIRROR" \
		>"$(dirname "$ROOT")/debootstrap-arm64.log" 2>&1 ||
		die "debootstrap failed; see $(dirname "$ROOT")/debootstrap-arm64.log"
	mv "$ROOT.tmp" "$ROOT"
	phase "arm64 root creation" "$t"
fi
# ctest in the root starts each test through the emulator named in the
# build dir (CMAKE_CROSSCOMPILING_EMULATOR): a static x86-64 program that
# runs in the root as it is.
qemu=$(command -v qemu-aarch64-static) || die "no qemu-aarch64-static"
cmp -s "$qemu" "$ROOT$qemu" || install -D -m 0755 "$qemu" "$ROOT$qemu"

# The mounts of scripts/debian11.sh, and the checkout at the same absolute
# path as on the host: the build dir's files and the test programs hold
# absolute paths.
# shellcheck source=lib/chroot.sh
. "$REPO/scripts/lib/chroot.sh"
chroot_mounts "$ROOT" "$REPO" "$REPO"

# DLTRACE_TEST_EMULATED: the tests that need what qemu-user cannot show
# (a thread's system call in /proc) skip.
in_root() {
	env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
		HOME=/tmp LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		DLTRACE_TEST_EMULATED=qemu-user chroot "$@"
}
chroot_install "$ROOT" "root dependency install" "${ROOT_PKGS[@]}"

t=$SECONDS
rc=0
owner=$(stat -c %u:%g "$REPO")
# unit_format_doc compiles with the cross compiler, which the root lacks:
# it runs on the host (its compiled check runs through binfmt_misc).
# unit_layers reads the sources with a shell loop of grep and sed, the
# same on every architecture: under qemu each of its few thousand
# processes is emulated, so it runs on the host too.
host_tests='^(unit_format_doc|unit_layers)$'
# shellcheck disable=SC2086 # CTEST_ARGS is a list of words on purpose
in_root --userspec="$owner" "$ROOT" sh -c "cd '$REPO/$BUILD_DIR' &&
	ctest --output-on-failure -j$(nproc) -E '$host_tests' \
	${CTEST_ARGS:-}" || rc=$?
if [ -z "${CTEST_ARGS:-}" ]; then
	ctest --test-dir "$REPO/$BUILD_DIR" --output-on-failure \
		-R "$host_tests" || rc=$?
fi
phase "tests under qemu (arm64 root)" "$t"
exit "$rc"
