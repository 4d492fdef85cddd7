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
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
mb_run smem_pipe 60 "$OUT"; cat "$OUT/smem_pipe.json"
mb_smi "$OUT"
