#!/usr/bin/env bash
# One device call (issue 17 item 1, the GEMM families; branch gemm17): Nsight Compute sections of
# the GEMM launches kernsim still misses, to tell which part of the SM or memory path sets their
# time before a mechanism is changed -- the mma.sync + ldmatrix GEMMs (hgemm_mma_tn, the cp.async
# ones, mma_f16), the register-blocked float4 SGEMMs, and three of the tensor-core GEMM's parts
# (cp.async only, everything, ldmatrix + mma only). One launch each, clang's PTX as kernsim times
# it (the parts: nvcc, as they were measured). Sections, not single metrics, so a metric name this
# ncu does not know cannot fail the run: SpeedOfLight (SM/L1/L2/DRAM throughput), ComputeWorkload
# (issue active, pipe utilisation), MemoryWorkloadAnalysis(+_Tables) (L1/shared wavefronts and bank
# conflicts, L2 sectors and hit rate, xbar bytes), WarpStateStats (stall reasons), SchedulerStats,
# Occupancy, LaunchStats. About 2-4 minutes.
#   bash calibration/validation/device/s6_gemm_ncu.sh OUTDIR          # on the H200 (or H100) machine
# Writes OUTDIR/smi.txt, ncu_gemm.csv (the validation launches), ncu_parts.csv (the parts),
# and the measure_h200.py logs.
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=python3
[ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT/smi.txt" 2>&1
cat "$OUT/smi.txt"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -z "$NCU" ]; then echo "ncu not found"; exit 1; fi
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section LaunchStats"
ONLY=""
for s in hgemm_mma_tn_1024 hgemm_mma_tn_2048 hgemm_mma_cpasync_2048 hgemm_mma_cpasync_4096 mma_f16_2048 mma_f16_4096 \
         sgemm_f4_128_1024 sgemm_f4_128_2048 sgemm_f4_64_4096 sgemm_regblock_1024 sgemm_regblock_4096; do
  ONLY="$ONLY --only $s"
done
timeout 300 "$NCU" --clock-control none --target-processes all -k 'regex:^(?!cupy|_fill|kernsim_flush)' $SECTIONS \
  --csv --page details $PY calibration/validation/measure_h200.py --out "$OUT/ncu_run" \
  --ptx-dir calibration/validation/h200/ptx_clang --tag _ncu --no-corpus-check --no-check --reps 1 --warmup 0 \
  --cache-dir /tmp/kernsim_s6_cubins $ONLY > "$OUT/ncu_gemm.csv" 2> "$OUT/ncu_gemm_stderr.txt"
echo "ncu (validation launches) exit $?"; wc -l "$OUT/ncu_gemm.csv"
timeout 180 "$NCU" --clock-control none --target-processes all -k 'regex:^mma_parts' $SECTIONS \
  --csv --page details $PY calibration/validation/measure_h200.py --out "$OUT/ncu_parts_run" \
  --specs calibration/microbenchmarks/cuda/specs_mma_parts --no-corpus-check --no-check --reps 1 --warmup 0 \
  --cache-dir /tmp/kernsim_s6_cubins --only mp_1_2048 --only mp_7_2048 --only mp_6_2048 \
  > "$OUT/ncu_parts.csv" 2> "$OUT/ncu_parts_stderr.txt"
echo "ncu (parts) exit $?"; wc -l "$OUT/ncu_parts.csv"
tail -3 "$OUT/ncu_gemm_stderr.txt" "$OUT/ncu_parts_stderr.txt"
