#!/usr/bin/env bash
# One device call (issue 17 item 1, the naive SGEMMs; branch gemm17b): how fast the SM's L1 serves
# loads that hit, by the lines and sectors a warp's request touches, and which power-of-two strides
# keep how many lines in L1 (calibration/microbenchmarks/cuda/l1_rate.cu, about half a minute),
# then Nsight Compute sections and L1 counters of the naive SGEMMs at 1024/2048/4096 (the 16x16 and
# the 32x32 kernel, clang's PTX as kernsim times it): the L1 hit rate and tag lookups where the
# 4096^3 runs lose 18-45% per k step against the 2048^3 ones. Two to four minutes on an H100/H200.
#   bash calibration/validation/device/s7_l1_rate.sh OUTDIR
# Writes OUTDIR/smi.txt, l1_rate.json (+ .err, .build.log, .sass), ncu_naive.csv (sections),
# ncu_naive_metrics.csv (single counters; may fail on an ncu that lacks one: the sections stand).
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
n=l1_rate
if mb_run $n 150 "$OUT"; then
  python3 - "$OUT/$n.json" <<'PY' || tail -c 3000 "$OUT/$n.json"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rate"]:
    print("%-14s %-9s lines %2d sectors %2d: %.2f cycles/request, %.2f/line, %.2f/sector" % (
        r["op"], r["shape"], r["lines"], r["sectors"], r["cycles_per_request"], r["cycles_per_line"], r["cycles_per_sector"]))
rows = {}
for r in d["stride"]:
    rows.setdefault(r["stride"], []).append("%d:%.0f" % (r["lines"], r["cycles_per_load"]))
for k, v in rows.items():
    print("stride %6d:" % k, " ".join(v))
PY
fi
PY=python3
[ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -z "$NCU" ]; then echo "ncu not found"; exit 0; fi
ONLY=""
for s in sgemm_naive_1024 sgemm_naive_2048 sgemm_naive_4096 sgemm_naive32_2048 sgemm_naive32_4096; do
  ONLY="$ONLY --only $s"
done
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy"
timeout 200 "$NCU" --clock-control none --target-processes all -k 'regex:^sgemm_naive' $SECTIONS \
  --csv --page details $PY calibration/validation/measure_h200.py --out "$OUT/ncu_run" \
  --ptx-dir calibration/validation/h200/ptx_clang --tag _ncu --no-corpus-check --no-check --reps 1 --warmup 0 \
  --cache-dir /tmp/kernsim_s7_cubins $ONLY > "$OUT/ncu_naive.csv" 2> "$OUT/ncu_naive_stderr.txt"
echo "ncu (sections) exit $?"; wc -l "$OUT/ncu_naive.csv"
METRICS=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,\
l1tex__t_set_accesses_pipe_lsu_mem_global_op_ld.sum,l1tex__t_set_conflicts_pipe_lsu_mem_global_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,\
smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_lg_throttle,\
smsp__average_warp_latency_issue_stalled_mio_throttle,smsp__average_warp_latency_issue_stalled_tex_throttle
timeout 150 "$NCU" --clock-control none --target-processes all -k 'regex:^sgemm_naive' --metrics "$METRICS" \
  --csv $PY calibration/validation/measure_h200.py --out "$OUT/ncu_run2" \
  --ptx-dir calibration/validation/h200/ptx_clang --tag _ncu2 --no-corpus-check --no-check --reps 1 --warmup 0 \
  --cache-dir /tmp/kernsim_s7_cubins $ONLY > "$OUT/ncu_naive_metrics.csv" 2> "$OUT/ncu_naive_metrics_stderr.txt"
echo "ncu (metrics) exit $?"; wc -l "$OUT/ncu_naive_metrics.csv"
tail -3 "$OUT/ncu_naive_stderr.txt" "$OUT/ncu_naive_metrics_stderr.txt"
mb_smi "$OUT"
