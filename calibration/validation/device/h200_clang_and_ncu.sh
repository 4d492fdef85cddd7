#!/usr/bin/env bash
# One device call: measure the validation set as kernsim sees it (clang's PTX, assembled by
# ptxas on the machine) and profile selected launches with Nsight Compute (DRAM/L2/L1 traffic,
# SASS instruction counts). Usage on the GPU machine: bash calibration/validation/device/h200_clang_and_ncu.sh OUTDIR
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 calibration/validation/measure_h200.py --out "$OUT" --ptx-dir calibration/validation/h200/ptx_clang \
  --tag _clang --no-corpus-check 2>&1 | tail -3
ONLY=""
for s in transpose_naive_4096 transpose_tiled_4096 transpose_padded_4096 copy_f32_32M copy_f32x4_32M sgemm_naive_1024 \
         sgemm_tiled_1024 softmax_warp_2048x8192 spmv_vector_500k spmv_scalar_500k math_f32_4M bit_tricks_4M \
         mma_f16_1024 warp_vote_4M warp_shuffles_4M minmax_i32_16M reduce_shuffle_16M scan_blelloch_16M \
         histogram_global_uniform_64M saxpy_grid528_4M block_sum_t_f32_16M wmma_f16_1024; do
  ONLY="$ONLY --only $s"
done
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
timeout 420 "$NCU" --clock-control none --target-processes all -k 'regex:^(?!cupy|_fill)' --metrics "$METRICS" --csv \
  python3 calibration/validation/measure_h200.py --out "$OUT/ncu_run" --ptx-dir calibration/validation/h200/ptx_clang \
  --tag _ncu --no-corpus-check --reps 1 --warmup 0 $ONLY > "$OUT/ncu_metrics.csv" 2> "$OUT/ncu_stderr.txt"
echo "ncu exit $?"; wc -l "$OUT/ncu_metrics.csv"; tail -5 "$OUT/ncu_stderr.txt"; head -c 600 "$OUT/ncu_metrics.csv"
