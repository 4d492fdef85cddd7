#!/usr/bin/env bash
# One device call (issue 17 item 1, < 10 s of GPU time): what a taken branch, a warp-uniform branch
# around a body and the marching stencil's divergent sibling paths (lane 0 / lane 31, with and
# without an L2-hit load each) cost a warp, each against a branch-free twin, 1 and 8 warps
# (calibration/microbenchmarks/cuda/branch_cost.cu). Writes OUT/smi.txt, OUT/branch_cost.json
# (+ .sass, .build.log, .err).
# Usage on the GPU machine: bash calibration/validation/device/s7_branch_cost.sh OUTDIR
# (or through s6_session.sh: `bash calibration/validation/device/s6_session.sh OUT 60 branch_cost`)
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
D=calibration/microbenchmarks/cuda
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; "$NVCC" --version | tail -1; } \
  > "$OUT/smi.txt" 2>&1
n=branch_cost
if "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o "/tmp/$n" "$D/$n.cu" > "$OUT/$n.build.log" 2>&1; then
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -sass "/tmp/$n" > "$OUT/$n.sass" 2>/dev/null
  timeout 60 "/tmp/$n" > "$OUT/$n.json" 2> "$OUT/$n.err"
  echo "$n exit $?"
  cat "$OUT/$n.json"
else
  echo "build $n failed"; cat "$OUT/$n.build.log"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
