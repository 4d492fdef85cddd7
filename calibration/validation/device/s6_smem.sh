#!/usr/bin/env bash
# One device call (issue 17, shared-memory kernels with bank conflicts, < 30 s of GPU time): what
# the shared-memory pipe charges beyond conflict-free wavefronts
# (calibration/microbenchmarks/cuda/smem_pipe.cu): LDS/STS/LDG throughput with n-way conflicts,
# one lane on and every lane predicated off; a global or shared load behind queued conflicted
# LDS; barrier phases with a conflicted body by one warp, branched around or predicated off in
# the others (scan_blelloch's SASS). Writes OUT/smi.txt and OUT/smem_pipe.json.
# Usage on the GPU machine: bash calibration/validation/device/s6_smem.sh OUTDIR
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
D=calibration/microbenchmarks/cuda
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1; } > "$OUT/smi.txt" 2>&1
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/smem_pipe $D/smem_pipe.cu || exit 1
timeout 60 /tmp/smem_pipe > "$OUT/smem_pipe.json"; echo "smem_pipe exit $?"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
cat "$OUT/smi.txt" "$OUT/smem_pipe.json"
