#!/usr/bin/env bash
# One device call (issue 17 item 1, tr_sum_atomic_64M predicted 18% fast; < 20 s of GPU time): what
# an acq_rel atomic (ptxas: MEMBAR.ALL.GPU + ATOMG + CCTL.IVALL) costs beyond a relaxed one
# (calibration/microbenchmarks/cuda/fence_atomic.cu): dependent chains of fence.acq_rel.gpu, a
# store + fence, relaxed and acq_rel atom (one thread); the fence while 1056 CTAs stream reads; the
# Triton sum's shape (16384 CTAs x 16 KiB, one atomic each) with acq_rel atom, relaxed atom/red and
# no atomic. Writes OUT/smi.txt, OUT/fence_atomic.jsonl, OUT/fence_atomic.sass.
# Usage on the GPU machine: bash calibration/validation/device/s7_fence_atomic.sh OUTDIR
#   (or through s6_session.sh OUT 60 fence_atomic)
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
MB_EXT=jsonl mb_run fence_atomic 60 "$OUT"
cat "$OUT/fence_atomic.jsonl"
mb_smi "$OUT"
