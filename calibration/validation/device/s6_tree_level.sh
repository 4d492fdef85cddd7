#!/usr/bin/env bash
# One device call (issue 17 item 1, block tree reductions): what one level of a shared-memory tree
# reduction costs a CTA (unrolled and loop forms, bare barriers, a store-barrier-load chain; 64 to
# 1024 threads; clock64) and how many cycles an SM spends per CTA of such a tree over large grids
# (calibration/microbenchmarks/cuda/tree_level.cu). A few seconds on an H100 or H200.
#   bash calibration/validation/device/s6_tree_level.sh OUTDIR
# Writes OUTDIR/smi.txt, tree_level.json (+ .err, .build.log, .sass).
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
mb_run tree_level 60 "$OUT"; tail -c 3000 "$OUT/tree_level.json"
mb_smi "$OUT"
