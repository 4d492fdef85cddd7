#!/usr/bin/env bash
# One device call (issue 17 item 1, the marching 3-D stencils, < 30 s of GPU time): where a plane of
# st7_march goes, section by section, in eight variants of the validation kernel's own shape
# (calibration/microbenchmarks/cuda/march_phases.cu: orig, one x-halo lane, halo loads before the
# above-plane load, no output store in the loop, no halo loads, the x halo as one predicated load,
# the output store after the second barrier, CTAs started apart). Writes OUT/smi.txt, OUT/march_phases.json (+ .sass,
# .build.log, .err).
# Usage on the GPU machine: bash calibration/validation/device/s7_march_phases.sh OUTDIR
# (or through s6_session.sh: `bash calibration/validation/device/s6_session.sh OUT 60 march_phases`)
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
D=calibration/microbenchmarks/cuda
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; "$NVCC" --version | tail -1; } \
  > "$OUT/smi.txt" 2>&1
n=march_phases
if "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o "/tmp/$n" "$D/$n.cu" > "$OUT/$n.build.log" 2>&1; then
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -sass "/tmp/$n" > "$OUT/$n.sass" 2>/dev/null
  timeout 60 "/tmp/$n" > "$OUT/$n.json" 2> "$OUT/$n.err"
  echo "$n exit $?"
  cat "$OUT/$n.json"
else
  echo "build $n failed"; cat "$OUT/$n.build.log"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
