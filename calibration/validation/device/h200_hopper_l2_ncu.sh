#!/usr/bin/env bash
# One device call: Nsight Compute counters of Hopper GEMMs whose kernsim prediction is too slow
# (Triton's cp.async matmuls, +27..68%) beside their TMA twins and two ladder steps: how many
# bytes cross the L2, at what share of its peak, between the two L2 partitions (the fabric),
# L1 hits of cp.async (LDGSTS), and the SM and L2 clocks while they run.
# Usage on the GPU machine: bash calibration/validation/device/h200_hopper_l2_ncu.sh OUTDIR
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
"$NCU" --version | tail -1
ONLY=""
for s in tmm_bf16_4096_128x128x64_w4s4 tmm_bf16_4096_64x128x64_w4s4 tmm_bf16_4096_128x256x64_w8s3 \
         tmm_tma_bf16_4096_128x256x64_w8s3 ladder_bf16_4096_v3_wgmma_tma ladder_bf16_4096_v4_wgmma_ws; do
  ONLY="$ONLY --only $s"
done
# 1. the full set of sections (details page): throughput breakdowns, memory tables, clocks
timeout 240 "$NCU" --clock-control none --target-processes all -k 'regex:matmul|ladder' --set full --csv --page details \
  python3 calibration/validation/measure_hopper.py --out "$OUT/run_full" --reps 1 --warmup 0 --flush-mode read $ONLY \
  > "$OUT/ncu_full.csv" 2> "$OUT/ncu_full_stderr.txt"
echo "ncu full exit $?"; wc -l "$OUT/ncu_full.csv"; tail -3 "$OUT/ncu_full_stderr.txt"
# 2. raw counters, each group separately (an unknown name fails only its own group)
G1=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_tex.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed
G2=lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum
G3=l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum
i=0
for G in $G1 $G2 $G3; do
  i=$((i+1))
  timeout 150 "$NCU" --clock-control none --target-processes all -k 'regex:matmul|ladder' --metrics "$G" --csv \
    python3 calibration/validation/measure_hopper.py --out "$OUT/run_g$i" --reps 1 --warmup 0 --flush-mode read $ONLY \
    > "$OUT/ncu_g$i.csv" 2> "$OUT/ncu_g${i}_stderr.txt"
  echo "ncu group $i exit $?"; grep -c '"' "$OUT/ncu_g$i.csv"; tail -2 "$OUT/ncu_g${i}_stderr.txt"
done
rm -rf "$OUT"/run_*
cd "$OUT" && tar czf ncu_hopper_l2.tar.gz ncu_*.csv ncu_*stderr.txt && rm -f ncu_*.csv ncu_*stderr.txt && ls -la
