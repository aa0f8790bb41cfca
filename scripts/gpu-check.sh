#!/usr/bin/env bash
# The real-GPU checks, for a machine with an NVIDIA GPU, PyTorch, cuDNN 9 and
# NCCL (no network, nothing else prepared):
#
#   scripts/gpu-check.sh OUTDIR
#
# Builds dltrace (without the tests: CUnit may be missing there), then runs
# under dltrace, each into OUTDIR/<scenario>/:
#   conv          a few PyTorch convolutions, cudnn.benchmark off
#   conv-bench    the same with cudnn.benchmark on
#   conv-legacy   the same with TORCH_CUDNN_V8_API_DISABLED=1
#   nccl1         a one-rank NCCL process group, init + all-reduce
#   nccl-hang     two ranks, rank 1 never reaches NCCL, both SIGKILLed
#                 after HANG_SECS (20): `dltrace-analyze hangs` output
#   train         a small CNN training step timed plain and traced
# and writes for each: the program's output and exit status, the verdict,
# `summary`, `libs --json`, `dump`, `env` and the HTML report of its traces,
# plus the same program's output without dltrace for comparison.  OUTDIR/report.txt sums it up.
# docs/validation.md records what a run showed.
set -uo pipefail
OUT=${1:?usage: scripts/gpu-check.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
REPORT=$OUT/report.txt
: >"$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }

say "== gpu-check $(date -u +%FT%TZ) on $(hostname)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version \
	--format=csv,noheader 2>&1 | tee -a "$REPORT"
$PY -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' 2>&1 | tee -a "$REPORT"

B=$PWD/build-gpu
if ! { cmake -S . -B "$B" -DDLTRACE_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
	>"$OUT/build.log" 2>&1 && cmake --build "$B" -j"$(nproc)" >>"$OUT/build.log" 2>&1; }; then
	say "build FAILED (see build.log)"
	exit 1
fi
say "build ok"

run() { # name, env..., -- , command...
	local name=$1
	shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	local d=$OUT/$name
	mkdir -p "$d"
	env "${envs[@]}" timeout 600 "$@" >"$d/plain.out" 2>"$d/plain.err"
	echo $? >"$d/plain.rc"
	env "${envs[@]}" timeout 600 "$B/bin/dltrace" -o "$d/traces" -- "$@" \
		>"$d/traced.out" 2>"$d/traced.err"
	echo $? >"$d/traced.rc"
	"$B/bin/dltrace-analyze" summary "$d/traces" >"$d/summary.txt" 2>&1
	"$B/bin/dltrace-analyze" libs --json "$d/traces" >"$d/libs.json" 2>&1
	"$B/bin/dltrace-analyze" dump "$d/traces" >"$d/dump.txt" 2>&1
	"$B/bin/dltrace-analyze" env "$d/traces" >"$d/env.txt" 2>&1
	"$B/bin/dltrace-analyze" report -o "$d/report.html" "$d/traces" \
		>/dev/null 2>&1
	local same=no
	cmp -s "$d/plain.out" "$d/traced.out" && same=yes
	say "-- $name: plain rc $(cat "$d/plain.rc"), traced rc $(cat "$d/traced.rc"), stdout identical: $same"
	grep -h -E "API_CALL|LIB_FAMILY|STATIC_RUNTIME|ALGO_RESULT|BK_FINALIZE|CONV_PROBLEM" \
		"$d/dump.txt" | awk '{print $5, $6}' | sort | uniq -c | sort -rn |
		head -25 | tee -a "$REPORT"
	grep -h "LIB_FAMILY\|STATIC_RUNTIME" "$d/dump.txt" | cut -c40- | tee -a "$REPORT"
	grep -h "^dltrace:" "$d/traced.err" | head -8 | tee -a "$REPORT"
}

run conv DLT_BENCHMARK=0 -- $PY scripts/gpu/conv.py
run conv-bench DLT_BENCHMARK=1 -- $PY scripts/gpu/conv.py
run conv-legacy DLT_BENCHMARK=0 TORCH_CUDNN_V8_API_DISABLED=1 -- $PY scripts/gpu/conv.py
run nccl1 NCCL_DEBUG=WARN -- $PY scripts/gpu/nccl1.py

# A real NCCL init hang: two ranks, rank 1 never reaches NCCL; both are
# killed with SIGKILL after HANG_SECS, then `hangs` reads their traces.
hang() {
	local d=$OUT/nccl-hang secs=${HANG_SECS:-20} pids=()
	mkdir -p "$d"
	for r in 0 1; do
		RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29544 \
			DLTRACE_STALL_MS=2000 DLTRACE_DIR="$d/traces" \
			LD_PRELOAD="$B/lib/libdltrace.so" LD_AUDIT="$B/lib/libdltrace-audit.so" \
			$PY scripts/gpu/nccl_hang.py >"$d/rank$r.out" 2>&1 &
		pids+=($!)
	done
	sleep "$secs"
	kill -KILL "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	"$B/bin/dltrace-analyze" hangs "$d/traces" >"$d/hangs.txt" 2>&1
	"$B/bin/dltrace-analyze" hangs --json "$d/traces" >"$d/hangs.json" 2>&1
	"$B/bin/dltrace-analyze" dump "$d/traces" >"$d/dump.txt" 2>&1
	"$B/bin/dltrace-analyze" env "$d/traces" >"$d/env.txt" 2>&1
	"$B/bin/dltrace-analyze" report -o "$d/report.html" "$d/traces" \
		>/dev/null 2>&1
	say "-- nccl-hang: killed after ${secs} s"
	head -30 "$d/hangs.txt" | cut -c1-400 | tee -a "$REPORT"
}
hang

# Overhead on a real training step: plain and traced, alternately, 3 rounds.
say "-- train-step (ms/step: plain traced)"
mkdir -p "$OUT/train"
for round in 1 2 3; do
	p=$($PY scripts/gpu/train_step.py 2>>"$OUT/train/err" | awk '/ms\/step/ {print $2}')
	t=$("$B/bin/dltrace" -q -o "$OUT/train/traces$round" -- $PY scripts/gpu/train_step.py \
		2>>"$OUT/train/err" | awk '/ms\/step/ {print $2}')
	say "round $round: $p $t"
done
say "== done"
