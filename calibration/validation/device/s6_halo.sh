#!/usr/bin/env bash
# One device call (issue 17, the marching 3-D stencils, < 60 s of GPU time): the latency of one
# halo load by itself (calibration/microbenchmarks/cuda/halo_latency.cu: an L2 hit alone and with
# an HBM miss of the same warp or SM outstanding, a load to a line another SM is filling, the far
# L2 partition's hits per SM and line, and the march with and without neighbours fetching its
# halo lines), then march_halo.cu again (its part 2, the L1-hit request rates, was fixed after the
# H100 run and not rerun). Writes OUT/smi.txt, OUT/halo_latency.json, OUT/far_l2_matrix.csv,
# OUT/march_halo.txt.
# Usage on the GPU machine: bash calibration/validation/device/s6_halo.sh OUTDIR
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
D=calibration/microbenchmarks/cuda
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1; } > "$OUT/smi.txt" 2>&1
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/halo_latency $D/halo_latency.cu || exit 1
timeout 60 /tmp/halo_latency "$OUT/far_l2_matrix.csv" > "$OUT/halo_latency.json"; echo "halo_latency exit $?"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
cat "$OUT/smi.txt" "$OUT/halo_latency.json"
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/march_halo $D/march_halo.cu || exit 1
timeout 60 /tmp/march_halo > "$OUT/march_halo.txt"; echo "march_halo exit $?"
tail -8 "$OUT/march_halo.txt"
