#!/usr/bin/env bash
# One device call (issue 17 item 1, row softmax and norms): how much L1 a kernel gets by the shared
# memory its CTAs take (the driver's carveout), as the footprint where re-reading whole lines stops
# hitting in L1 (calibration/microbenchmarks/cuda/l1_carveout.cu: 1 or 8 CTAs of 256 threads per
# SM, dynamic shared memory for each documented carveout step, footprints 96-320 KB per SM, plus
# one run with the preferred carveout set to 0). Under a minute on an H100 or H200.
#   bash calibration/validation/device/s6_l1_carveout.sh OUTDIR
# Writes OUTDIR/smi.txt, l1_carveout.json (+ .err, .build.log, .sass).
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
n=l1_carveout
if "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o "$B/$n" "$D/$n.cu" > "$OUT/$n.build.log" 2>&1; then
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -sass "$B/$n" > "$OUT/$n.sass" 2>/dev/null
  timeout 120 "$B/$n" > "$OUT/$n.json" 2> "$OUT/$n.err"
  echo "$n exit $?"
  python3 - "$OUT/$n.json" <<'PY' || tail -c 2000 "$OUT/$n.json"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
for r in d["results"]:
    rows.setdefault((r["ctas_per_sm"], r["smem_per_cta"], r["pref_carveout"]), []).append((r["footprint_kb"], r["cycles_per_load"]))
for k, v in rows.items():
    print("ctas %d smem %6d pref %2d:" % k, " ".join("%d:%.0f" % x for x in v))
PY
else
  echo "build $n failed"; cat "$OUT/$n.build.log"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
