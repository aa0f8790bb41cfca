# CMake toolchain file: cross-build dltrace for aarch64 (arm64) Linux on an
# x86-64 Debian/Ubuntu host, and run what it builds (tests, fixtures) under
# qemu-user.
#
#   cmake -S . -B build-arm64 \
#         -DCMAKE_TOOLCHAIN_FILE=scripts/cmake/aarch64-linux-gnu.cmake
#
# Host packages (Debian 12): gcc-aarch64-linux-gnu qemu-user-static, and
# the target's libraries through multiarch (dpkg --add-architecture arm64):
# libc6-dev:arm64 libcunit1-dev:arm64 libdw-dev:arm64 libelf-dev:arm64.
# Multiarch puts them in
# /usr/lib/aarch64-linux-gnu and the target's ld.so in /lib, where the
# cross compiler and qemu look without a separate sysroot.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)
# find_library and find_path look in lib/aarch64-linux-gnu, the multiarch
# directory, never in the host's x86_64-linux-gnu one.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# The target's files: the cross toolchain's own (/usr/aarch64-linux-gnu)
# and multiarch's (/usr/lib/aarch64-linux-gnu, /usr/include).  What it
# links against is the host's glibc (Debian 12: 2.36), so the result needs
# that glibc or newer on the target; builds for older nodes are made in an
# old root instead (scripts/debian11.sh, DLTRACE_BULLSEYE_ARCH=arm64).
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
# An x86-64 CUDA toolkit on the host (/usr/local/cuda) is no use to an arm64
# build: the tests' real-CUDA fixtures would link its x86-64 libraries
# ("file in wrong format").  Its headers would do, but the tests take the
# libraries and headers together.
list(APPEND CMAKE_IGNORE_PATH /usr/local/cuda/lib64 /usr/local/cuda/include
     /usr/local/cuda/targets/x86_64-linux/lib
     /usr/local/cuda/targets/x86_64-linux/include)
# Programs (python3, the host's tools) from the host; libraries and headers
# only from the target's directories.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest starts each test executable through qemu.  The programs those tests
# start themselves (the launcher, fixtures) go through the kernel's
# binfmt_misc entry for aarch64 (qemu-user-static registers one), which
# must be enabled: scripts/cross-arm64.sh checks.
find_program(DLT_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(DLT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      ${DLT_QEMU_AARCH64};-L;/)
endif()
