#!/usr/bin/env bash
# One device call (issues 14 and 17): what the flush before a timed launch leaves in the L2, and
# the part's own HBM/L2/launch numbers. About 2-3 minutes on an H100 or H200.
#   bash calibration/validation/device/h100_flush_state.sh OUTDIR
# 1. flush_state.cu: ReLU / read-only / write-only streaming kernels of 4-256 MiB per buffer, each
#    event-timed behind no flush, a 256 MiB read flush and a 256 MiB write flush (KernelBench's).
# 2. Nsight Compute (--cache-control none, so the flush's L2 state reaches the kernel): DRAM bytes
#    read and written by each timed kernel after each flush.
# 3. run_cuda.py groups clock, bandwidth, launch: HBM read/write/copy, L2 read, launch overhead.
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
cat "$OUT/smi.txt"
D=calibration/microbenchmarks/cuda
"$NVCC" -O3 -arch=sm_90a -I"$D" "$D/flush_state.cu" -o /tmp/fs_bench || exit 1
/tmp/fs_bench > "$OUT/flush_state.jsonl" 2> "$OUT/flush_state.err"
echo "flush_state exit $?"; wc -l "$OUT/flush_state.jsonl"
if [ -n "$NCU" ]; then
  timeout 200 "$NCU" --cache-control none --clock-control none -k 'regex:^fs_(relu|read|write)$' \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum \
    --csv /tmp/fs_bench --ncu > "$OUT/flush_state_ncu.csv" 2> "$OUT/flush_state_ncu.err"
  echo "ncu exit $?"; wc -l "$OUT/flush_state_ncu.csv"
else
  echo "ncu not found"
fi
timeout 300 python3 calibration/microbenchmarks/run_cuda.py --out "$OUT/mb" --groups clock,bandwidth,launch --no-specs \
  --budget-s 280 > "$OUT/mb.log" 2>&1
echo "run_cuda exit $?"; tail -30 "$OUT/mb.log"
