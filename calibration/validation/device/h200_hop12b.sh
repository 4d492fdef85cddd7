#!/usr/bin/env bash
# One device call (issue 12 / issue 19 part 2, ~20 s of GPU time): L2 reads that all go to a few
# hot lines (calibration/microbenchmarks/cuda/l2_hot_lines.cu): is the L2 one server for every
# read, as kernsim models it, or per-slice servers that a few lines cannot all use (the
# weight-streaming M = 16 -> 32 ladder step of the Hopper set)? Writes OUT/l2_hot_lines.json and
# OUT/hop12b_env.txt and prints them.
# Usage on the GPU machine: bash calibration/validation/device/h200_hop12b.sh OUTDIR [iters=2048]
set -u
OUT=${1:?output directory}
ITERS=${2:-2048}
mkdir -p "$OUT"
D=calibration/microbenchmarks/cuda
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.mem,power.limit,temperature.gpu --format=csv; nvcc --version | tail -1; } > "$OUT/hop12b_env.txt" 2>&1
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/l2_hot_lines $D/l2_hot_lines.cu || exit 1
/tmp/l2_hot_lines "$ITERS" > "$OUT/l2_hot_lines.json"; echo "l2_hot_lines exit $?"
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> "$OUT/hop12b_env.txt" 2>&1
cat "$OUT/hop12b_env.txt" "$OUT/l2_hot_lines.json"
