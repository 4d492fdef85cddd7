#!/usr/bin/env bash
# One device call (issue 17 item 1, branch stencil17): Nsight Compute sections of the grown set's
# launches that kernsim still predicts 25-45% fast -- the marching 3-D stencils, the block
# reductions (softmax_block, rmsnorm, layernorm), the shared-memory transposes, switch_ops and the
# float4 copy -- next to launches of the same kind it predicts well (triad_f32x4, the Triton rmsnorm),
# to tell which part of the SM or memory path sets their time: DRAM bytes (do rmsnorm's and
# softmax_block's re-reads of a row miss in the L2?), L2 hit rates, shared wavefronts, the warps'
# stall reasons (branch resolving, barrier, long scoreboard), issue activity. Then per-SASS-instruction
# stall samples of st7_march_256 (SourceCounters, the source page as CSV). One launch each, clang's
# PTX as kernsim times it. About 2-4 minutes.
#   bash calibration/validation/device/s7_family_ncu.sh OUTDIR          # on the H200 (or H100) machine
# (or through s6_session.sh: `bash calibration/validation/device/s6_session.sh OUT 300 family_ncu`)
# Writes OUTDIR/smi.txt, ncu_family.csv, ncu_march_source.csv and the measure_h200.py logs.
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
  --section LaunchStats --section InstructionStats"
ONLY=""
for s in st7_march_256x256x256 st13_march_256x256x256 st7_tile3d_256x256x256 softmax_block_2048x8192 \
         softmax_block_16384x1024 rmsnorm_16384x1024 layernorm_16384x1024 transpose_tiled_4096 transpose_padded_4096 \
         switch_ops_16M piecewise_16M copy_f32x4_32M triad_f32x4_32M tr_rmsnorm_f16_16384x4096; do
  ONLY="$ONLY --only $s"
done
timeout 300 "$NCU" --clock-control none --target-processes all -k 'regex:^(?!cupy|_fill|kernsim_flush)' $SECTIONS \
  --csv --page details $PY calibration/validation/measure_h200.py --out "$OUT/ncu_run" \
  --ptx-dir calibration/validation/h200/ptx_clang --tag _ncu --no-corpus-check --no-check --reps 1 --warmup 0 \
  --cache-dir /tmp/kernsim_s7_cubins $ONLY > "$OUT/ncu_family.csv" 2> "$OUT/ncu_family_stderr.txt"
echo "ncu (family launches) exit $?"; wc -l "$OUT/ncu_family.csv"
# per-instruction stall samples of the marching stencil (which SASS instruction its warps wait at)
timeout 120 "$NCU" --clock-control none --target-processes all -k 'regex:^st7_march' --section SourceCounters \
  --section WarpStateStats --csv --page source --print-source sass $PY calibration/validation/measure_h200.py \
  --out "$OUT/ncu_src_run" --ptx-dir calibration/validation/h200/ptx_clang --tag _ncu --no-corpus-check --no-check \
  --reps 1 --warmup 0 --cache-dir /tmp/kernsim_s7_cubins --only st7_march_256x256x256 \
  > "$OUT/ncu_march_source.csv" 2> "$OUT/ncu_march_source_stderr.txt"
echo "ncu (march source) exit $?"; wc -l "$OUT/ncu_march_source.csv"
tail -3 "$OUT/ncu_family_stderr.txt" "$OUT/ncu_march_source_stderr.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
