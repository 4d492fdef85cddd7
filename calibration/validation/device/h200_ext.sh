#!/usr/bin/env bash
# One device call (issue 17): the grown H200 validation set (164 launches: the 72 of 2026-11-30 and
# the 92 issue 17 added), measured as kernsim sees it -- clang's PTX for CUDA sources
# (h200/ptx_clang), the committed Triton PTX (h200/ptx_triton), both assembled by ptxas here --
# every new launch's output checked against numpy (h200/ext_reference.py), then Nsight Compute
# counters of selected new launches. About 2-4 minutes.
#   bash calibration/validation/device/h200_ext.sh OUTDIR          # on the H200 machine
# Writes OUTDIR/validation_measured_clang.{csv,json} (for kernsim validate --measured),
# validation_checks_clang.txt, run.log, ncu_ext.csv.
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=python3
[ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
timeout 400 $PY calibration/validation/measure_h200.py --out "$OUT" --ptx-dir calibration/validation/h200/ptx_clang \
  --tag _clang --no-corpus-check --budget-s 330 --cache-dir /tmp/kernsim_ext_cubins > "$OUT/run.log" 2>&1
echo "measure exit $?"
grep -v "^  compiled" "$OUT/run.log" | grep -E "ERROR|FAIL|budget|done in|output checks" | head -40
tail -2 "$OUT/run.log"
# Nsight Compute counters of the new launches whose mechanism is in doubt (one launch each)
ONLY=""
for s in atomic_f32_8lines_16M atomic_u32_256addr_8lines_16M hist_pow_global_p16_256b_32M hist_pow_global_p1_256b_32M \
         sum_tree_interleaved_64M sum_shuffle_gs_64M sgemm_naive32_2048 sgemm_f4_128_2048 hgemm_mma_tn_2048 \
         spmv_pl_thread_r512k spmv_pl_warp_r512k softmax_short_32x512k softmax_short_dyn32x512k st7_march_256x256x256 \
         st7_tile3d_256x256x256 sfu_sin_chain_132x32_8192 tr_softmax_4096x4096 tr_layernorm_f16_16384x1024; do
  ONLY="$ONLY --only $s"
done
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  timeout 140 "$NCU" --clock-control none --target-processes all -k 'regex:^(?!cupy|_fill|kernsim_flush)' \
    --metrics "$METRICS" --csv $PY calibration/validation/measure_h200.py --out "$OUT/ncu_run" \
    --ptx-dir calibration/validation/h200/ptx_clang --tag _ncu --no-corpus-check --no-check --reps 1 --warmup 0 \
    --cache-dir /tmp/kernsim_ext_cubins $ONLY > "$OUT/ncu_ext.csv" 2> "$OUT/ncu_stderr.txt"
  echo "ncu exit $?"; wc -l "$OUT/ncu_ext.csv"
else
  echo "ncu not found"
fi
