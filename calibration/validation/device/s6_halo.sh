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
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
mb_run halo_latency 60 "$OUT" "$OUT/far_l2_matrix.csv"; cat "$OUT/halo_latency.json"
MB_EXT=txt mb_run march_halo 60 "$OUT"; tail -8 "$OUT/march_halo.txt"
mb_smi "$OUT"
