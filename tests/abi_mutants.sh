#!/bin/sh
# tests/test_gpu_abi.c must reject every mistake it is there to catch.
# Compiles it once against include/dltrace as it is (it must compile), then
# against copies with one deliberate mistake each in apis.def or
# gpu_abi.def (each must fail to compile).  A mutation that no longer
# changes its file is a failure too: the test would pass without testing.
#
#   abi_mutants.sh CC SOURCE_DIR WORK_DIR [INCLUDE_DIR...]
#
# Exits 77 (skipped) when no real CUDA/cuDNN/NCCL include directory is
# given: the check needs the real headers.
set -u
cc=$1 src=$2 work=$3
shift 3
if [ $# -eq 0 ]; then
	echo "skipped: no CUDA, cuDNN and NCCL headers found" \
		"(set CUDA_HOME, or build with -DDLTRACE_REQUIRE_GPU_HEADERS=ON" \
		"to make that an error)"
	exit 77
fi
incs=
for d in "$@"; do incs="$incs -isystem $d"; done
# The flags test_gpu_abi gets in tests/CMakeLists.txt.
flags="-std=gnu11 -Wall -Wextra -Werror -Wconversion -Wsign-conversion
	-Wno-deprecated-declarations"

rm -rf "$work" && mkdir -p "$work" || exit 1

# compile DIR: test_gpu_abi.c with DIR/dltrace first on the include path.
compile() {
	# shellcheck disable=SC2086
	$cc $flags -I"$1" $incs -c "$src/tests/test_gpu_abi.c" \
		-o "$1/test_gpu_abi.o" >"$1/log" 2>&1
}

mkdir -p "$work/base" && cp -R "$src/include/dltrace" "$work/base/" || exit 1
if ! compile "$work/base"; then
	echo "FAIL: the unmutated tables do not compile:"
	cat "$work/base/log"
	exit 1
fi
echo "ok: unmutated tables compile"

fails=0 n=0
# mutant NAME FILE FROM TO WHY: FROM (a Perl regex, first match) replaced
# by TO ($1, $2: its groups) in a copy of include/dltrace/FILE; the compile
# must fail with an error that matches WHY (an extended regex), so that a
# mutant broken some other way (a syntax error) does not count.
mutant() {
	n=$((n + 1))
	d="$work/m$n"
	mkdir -p "$d" && cp -R "$src/include/dltrace" "$d/" || exit 1
	FROM=$3 TO=$4 perl -0pi -e '
		s/$ENV{FROM}/my @g = ($1, $2); (my $t = $ENV{TO}) =~
			s{\$(\d)}{$g[$1 - 1]}g; $t/e' "$d/dltrace/$2"
	if cmp -s "$d/dltrace/$2" "$src/include/dltrace/$2"; then
		echo "FAIL: $1: the mutation no longer applies to $2"
		fails=$((fails + 1))
	elif compile "$d"; then
		echo "FAIL: $1: compiles, the check does not see it"
		fails=$((fails + 1))
	elif ! grep -q -E "$5" "$d/log"; then
		echo "FAIL: $1: rejected, but not by the check:"
		grep -m3 -E 'error' "$d/log"
		fails=$((fails + 1))
	else
		why=$(grep -m1 -E "$5" "$d/log" | sed 's/^.*error: //')
		echo "ok: $1: rejected ($why)"
	fi
}

# 1. a parameter's type
mutant "int -> long (cudaSetDevice)" apis.def \
	'\(int device\), \(device\)' '(long device), (device)' \
	'the type apis.def gives it is not the header'
mutant "ncclDataType_t dt -> long dt (ncclAllReduce)" apis.def \
	'dlt_ncclDataType_t dt' 'long dt' \
	'the type apis.def gives it is not the header'
# 2. two parameters swapped
mutant "dt and op swapped (ncclAllReduce)" apis.def \
	'dlt_ncclDataType_t dt,(\s+)dlt_ncclRedOp_t op,' \
	'dlt_ncclRedOp_t op,$1dlt_ncclDataType_t dt,' 'the type apis.def gives it is not the header'
mutant "dst and src swapped (cudaMemcpy)" apis.def \
	'\(void \*dst, const void \*src,' '(const void *src, void *dst,' \
	'the type apis.def gives it is not the header'
mutant "arguments dt and op swapped (ncclAllReduce)" apis.def \
	'\(s, d, n, dt, op, c, st\)' '(s, d, n, op, dt, c, st)' \
	'enum-conversion'
# 3. a stand-in's layout
mutant "time and memory swapped (cudnnAlgoPerf)" gpu_abi.def \
	'F\(float, time, \)(\s+\\\s+)F\(size_t, memory, \)' \
	'F(size_t, memory, )$1F(float, time, )' \
	'member time of a stand-in struct'
mutant "ncclUniqueId of 64 bytes" gpu_abi.def \
	'F\(char, internal, \[128\]\)' 'F(char, internal, [64])' \
	'stand-in struct dlt_abi_nccl_unique_id is not ncclUniqueId'
mutant "dim3 without z" gpu_abi.def \
	'(F\(unsigned int, y, \))\s+\\\s+F\(unsigned int, z, \)' '$1' \
	'stand-in struct dlt_abi_dim3 is not dim3'
mutant "CUdeviceptr as unsigned int" gpu_abi.def \
	'T\(dlt_CUdeviceptr, unsigned long long,' 'T(dlt_CUdeviceptr, unsigned int,' \
	'stand-in unsigned int is not CUdeviceptr'
# 4. a rule of apis.def
mutant "pre not the start of post (ncclAllReduce)" apis.def \
	'\(n, dt, op, DLT_P\(c\), DLT_P\(st\)\), \(n, dt, op' \
	'(n, op, dt, DLT_P(c), DLT_P(st)), (n, dt, op' \
	'pre is not the start of post'
mutant "values and post of different counts (cudaMalloc)" apis.def \
	'0, \(size, ptr\), \(\), \(size, ptr' '0, (size), (), (size, ptr' \
	'values and post differ in count'
mutant "a duplicate id (cudaSetDevice)" apis.def \
	'DLT_API\(2, CUDART, cudaSetDevice' 'DLT_API(1, CUDART, cudaSetDevice' \
	'duplicate case value'
# 5. a value
mutant "cudaErrorInsufficientDriver 36" gpu_abi.def \
	'X\(cudaErrorInsufficientDriver, 35\)' 'X(cudaErrorInsufficientDriver, 36)' \
	'is not 36 in the header'
mutant "cuDNN 9 NOT_SUPPORTED 3001" gpu_abi.def \
	'X\(NOT_SUPPORTED, 3000\)' 'X(NOT_SUPPORTED, 3001)' \
	'is not 3001 in the header'
mutant "ncclFloat32 8" gpu_abi.def 'X\(ncclFloat32, 7\)' 'X(ncclFloat32, 8)' \
	'is not 8 in the header'

if [ $fails -ne 0 ]; then
	echo "$fails of $n mutants not rejected (logs in $work)"
	exit 1
fi
echo "all $n mutants rejected"
