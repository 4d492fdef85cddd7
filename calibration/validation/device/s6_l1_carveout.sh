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
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
n=l1_carveout
if mb_run $n 120 "$OUT"; then
  python3 - "$OUT/$n.json" <<'PY' || tail -c 2000 "$OUT/$n.json"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
for r in d["results"]:
    rows.setdefault((r["ctas_per_sm"], r["smem_per_cta"], r["pref_carveout"]), []).append((r["footprint_kb"], r["cycles_per_load"]))
for k, v in rows.items():
    print("ctas %d smem %6d pref %2d:" % k, " ".join("%d:%.0f" % x for x in v))
PY
fi
mb_smi "$OUT"
