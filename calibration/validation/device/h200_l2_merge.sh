#!/usr/bin/env bash
# One device call: calibration/microbenchmarks/cuda/l2_merge.cu timed, then under Nsight Compute
# (L2 read sectors and requests from the SMs, fabric sectors) for every mode, at two region sizes.
# Usage on the GPU machine: bash calibration/validation/device/h200_l2_merge.sh OUTDIR
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/l2_merge calibration/microbenchmarks/cuda/l2_merge.cu || exit 1
for R in 256; do
  echo "== region ${R} KiB, 8 passes"
  /tmp/l2_merge $R 8 | tee "$OUT/l2_merge_time_r$R.txt"
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second
"$NCU" --clock-control none -k l2_merge_read --metrics "$M" --csv /tmp/l2_merge 256 8 > "$OUT/l2_merge_ncu.csv" 2> "$OUT/l2_merge_ncu_stderr.txt"
echo "ncu exit $?"
python3 - "$OUT/l2_merge_ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 14]
d = collections.OrderedDict()
for r in rows[1:]:
    d.setdefault(int(r[0]), {})[r[12]] = r[14]
modes = ["distinct", "pairs", "share_2", "stagger_2", "share_4", "share_8", "stagger_8", "share_16", "all",
         "delay_2_100", "delay_2_300", "delay_2_1000", "delay_2_3000", "delay_2_10000", "cold_1", "cold_2", "cold_16",
         "delay_2_5000", "delay_2_7000", "sm_tpc", "sm_gpc", "sm_2tpc", "sm_3tpc", "sm_4tpc"]
print("mode        tex_read_sectors/expected  fabric/expected  us")
for i, (k, v) in enumerate(d.items()):
    if i % 6 != 5: continue  # the last of each mode's 6 launches
    f = lambda m: float(v.get(m, "nan").replace(",", ""))
    expected = (132 if modes[i // 6].startswith("sm_") else 128) * (1 if modes[i // 6].startswith("cold") else 8) * 256 * 1024 / 32
    print(f"{modes[i // 6]:<13} {f('lts__t_sectors_srcunit_tex_op_read.sum') / expected:8.3f} {f('lts__t_sectors_srcunit_ltcfabric.sum') / expected:8.3f} {f('gpu__time_duration.sum') / 1e3:8.1f} dram/expected {f('dram__bytes_read.sum') / 32 / expected:6.3f}")
PY
