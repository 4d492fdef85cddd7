#!/usr/bin/env bash
# One device call (issue 12 item 2, ~45 s): the SM clock under tensor load by SM count, wgmma duty
# cycle and operand data (calibration/microbenchmarks/cuda/tensor_clock_load.cu, with nvidia-smi
# sampling every 100 ms beside it), and the TMA engine's issue cost, rate and cold-miss latency
# (calibration/microbenchmarks/cuda/tma_engine.cu). Writes OUT/tensor_clock_load.json,
# OUT/tensor_clock_smi.csv, OUT/tma_engine.json, OUT/hop12_env.txt and prints them.
# Usage on the GPU machine: bash calibration/validation/device/h200_hop12.sh OUTDIR [dur_ms=300]
set -u
OUT=${1:?output directory}
DUR=${2:-300}
mkdir -p "$OUT"
D=calibration/microbenchmarks/cuda
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,temperature.gpu --format=csv; nvcc --version | tail -1; } > "$OUT/hop12_env.txt" 2>&1
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/tma_engine $D/tma_engine.cu || exit 1
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/tclock $D/tensor_clock_load.cu || exit 1
/tmp/tma_engine > "$OUT/tma_engine.json"; echo "tma_engine exit $?"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > "$OUT/tensor_clock_smi.csv" 2>&1 &
SMI=$!
/tmp/tclock "$DUR" > "$OUT/tensor_clock_load.json"; echo "tensor_clock_load exit $?"
kill "$SMI" 2>/dev/null
cat "$OUT/hop12_env.txt" "$OUT/tma_engine.json" "$OUT/tensor_clock_load.json"
