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
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT/smi.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/smi.txt" 2>&1
cat "$OUT/smi.txt"
D=calibration/microbenchmarks/cuda
B=$(mktemp -d)
n=tree_level
if "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o "$B/$n" "$D/$n.cu" > "$OUT/$n.build.log" 2>&1; then
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -sass "$B/$n" > "$OUT/$n.sass" 2>/dev/null
  timeout 60 "$B/$n" > "$OUT/$n.json" 2> "$OUT/$n.err"
  echo "$n exit $?"
  tail -c 3000 "$OUT/$n.json"
else
  echo "build $n failed"; cat "$OUT/$n.build.log"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
