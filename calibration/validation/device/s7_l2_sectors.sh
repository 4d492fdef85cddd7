#!/usr/bin/env bash
# One device call (issue 17 item 1, the cp.async GEMMs; branch gemm17b): what an L2 read request
# costs by the sectors it carries (4, 2 = the GEMMs' 64-byte half-line pieces, 1), for
# ld.global.cg.v4 and for cp.async.cg, every SM reading distinct L2-resident lines
# (calibration/microbenchmarks/cuda/l2_sectors.cu; a few seconds), then Nsight Compute's L2 request
# and sector counts and throughputs of the same six runs. Under a minute on an H100 or H200.
#   bash calibration/validation/device/s7_l2_sectors.sh OUTDIR
# Writes OUTDIR/smi.txt, l2_sectors.json (+ .err, .build.log, .sass), ncu_l2_sectors.csv.
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
n=l2_sectors
if mb_run $n 60 "$OUT"; then
  python3 - "$OUT/$n.json" <<'PY' || tail -c 3000 "$OUT/$n.json"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    print("%-16s %d sectors/line: %.3f SM-cycles per line request, %.1f B per SM-cycle, %.0f GB/s chip" % (
        r["op"], r["sectors"], r["sm_cycles_per_line_request"], r["bytes_per_sm_cycle"], r["chip_gbs"]))
PY
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  if [ -n "$NCU" ]; then
    timeout 120 "$NCU" --clock-control none -k 'regex:l2req' --launch-skip 0 --csv \
      --metrics lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg,gpu__time_duration.sum \
      "$MB_BIN/$n" > "$OUT/ncu_l2_sectors.csv" 2> "$OUT/ncu_l2_sectors.err"
    echo "ncu exit $?"; wc -l "$OUT/ncu_l2_sectors.csv"
  fi
fi
mb_smi "$OUT"
