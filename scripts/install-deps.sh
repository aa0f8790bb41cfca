#!/usr/bin/env bash
# Installs what dltrace needs to build and test on Debian 12 (run as root, or
# with sudo available).  Installs only what is missing.
#
#   scripts/install-deps.sh            build + test dependencies
#   DLTRACE_NO_TORCH=1 scripts/...     skip Debian's python3-torch (large;
#                                      the tests that use it then skip)
#   DLTRACE_BENCH=1 scripts/...        also what scripts/bench.sh compares
#                                      with (ltrace)
#   DLTRACE_BROWSER=1 scripts/...      also Debian's chromium, in which the
#                                      suite opens the HTML report (its
#                                      test skips without it)
#   DLTRACE_PORTABILITY=1 scripts/...  also what scripts/debian11.sh,
#                                      package.sh and cross-arm64.sh need
#                                      (debootstrap, the aarch64 cross
#                                      compiler and libraries, qemu-user)
#   DLTRACE_TRANSPARENCY=1 scripts/... also Debian's CPython test suite
#                                      (libpython3.11-testsuite), so that
#                                      scripts/transparency.sh runs it
#                                      under /usr/bin/python3 too
set -euo pipefail

pkgs=(cmake make gcc libc6-dev libcunit1-dev libunwind-dev clang-format
      python3 binutils clang libclang-rt-14-dev universal-ctags libdw-dev
      libelf-dev gdb)
[ "${DLTRACE_NO_TORCH:-0}" = 1 ] || pkgs+=(python3-torch)
[ "${DLTRACE_BENCH:-0}" = 1 ] && pkgs+=(ltrace)
[ "${DLTRACE_BROWSER:-0}" = 1 ] && pkgs+=(chromium)
[ "${DLTRACE_TRANSPARENCY:-0}" = 1 ] && pkgs+=(libpython3.11-testsuite)
if [ "${DLTRACE_PORTABILITY:-0}" = 1 ]; then
	pkgs+=(debootstrap qemu-user-static binfmt-support
	       gcc-aarch64-linux-gnu libc6-dev:arm64 libcunit1-dev:arm64
	       libdw-dev:arm64 libelf-dev:arm64)
	# The arm64 libraries come through Debian's multiarch.
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		SUDO0=""
		[ "$(id -u)" -eq 0 ] || SUDO0=sudo
		$SUDO0 dpkg --add-architecture arm64
	fi
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: everything is installed"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
