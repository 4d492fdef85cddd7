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
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
mb_run march_phases 60 "$OUT"; cat "$OUT/march_phases.json"
mb_smi "$OUT"
