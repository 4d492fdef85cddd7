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
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
mb_run branch_cost 60 "$OUT"; cat "$OUT/branch_cost.json"
mb_smi "$OUT"
