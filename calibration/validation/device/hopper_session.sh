#!/usr/bin/env bash
# One device call that does what the lent GPU is for (2026-12-07): the device tool lends an H100 or
# an H200 for the same request, so the script asks nvidia-smi which it got.
#   H200: the GEMM placement / L2-sector measurement (h200_gemm_placement.py, ~25 s), then the
#         KernelBench-format set (measure_h200.py one-call form, builds and measurement).
#   H100: the part's own ground truth for h100.yaml. WHAT (the second argument) picks it:
#         "base" (default): the CUDA microbenchmarks (run_cuda.py), mem_paths.cu,
#         loaded_latency.cu, then the grown validation set (h200_ext.sh);
#         "hopper": the wgmma/TMA validation set (measure_hopper.py), ~1-2 minutes;
#         "none": nothing (a call meant for the H200 only);
#         "hop12": only the microbenchmarks below.
#   Further arguments name steps run first on either part: "hop12" runs h200_hop12.sh (the SM clock
#   under tensor load and the TMA engine, ~45 s) into OUT/hop12; "march" builds and runs
#   calibration/microbenchmarks/cuda/march_halo.cu (the marching stencil's halo and L1-hit shapes,
#   ~20 s) into OUT/march; "hop12b" runs h200_hop12b.sh (L2 reads of a few hot lines, ~20 s) into
#   OUT/hop12b.
#   bash calibration/validation/device/hopper_session.sh OUTDIR [WHAT] [hop12] [hop12b] [march]
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=python3
[ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
T0=$(date +%s)
# left N: seconds left of N since the start (left 0: minus the seconds spent)
left() { echo $(( ${1} - ($(date +%s) - T0) )); }
NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv > "$OUT/smi.txt" 2>&1
echo "GPU: $NAME"
# the Hopper clock-under-load and TMA-engine microbenchmarks (~45 s) on either part, first
has() { local a; for a in "${@:2}"; do [ "$a" = "$1" ] && return 0; done; return 1; }
if has hop12 "${@:2}"; then
  mkdir -p "$OUT/hop12"
  timeout 150 bash calibration/validation/device/h200_hop12.sh "$OUT/hop12" > "$OUT/hop12/run.log" 2>&1
  echo "hop12 exit $? ($(left 0) s)"; tail -5 "$OUT/hop12/run.log"
fi
if has hop12b "${@:2}"; then
  mkdir -p "$OUT/hop12b"
  timeout 90 bash calibration/validation/device/h200_hop12b.sh "$OUT/hop12b" > "$OUT/hop12b/run.log" 2>&1
  echo "hop12b exit $? ($(left 0) s)"; tail -8 "$OUT/hop12b/run.log"
fi
if has march "${@:2}"; then
  mkdir -p "$OUT/march"
  nvcc -O3 -arch=sm_90 -o /tmp/march_halo calibration/microbenchmarks/cuda/march_halo.cu > "$OUT/march/build.log" 2>&1 &&
    timeout 90 /tmp/march_halo > "$OUT/march/march_halo.txt" 2> "$OUT/march/stderr.txt"
  echo "march exit $? ($(left 0) s)"; tail -30 "$OUT/march/march_halo.txt"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/march/smi.txt" 2>&1
fi
case "$NAME" in
*H200*)
  mkdir -p "$OUT/placement"
  timeout 90 $PY calibration/validation/device/h200_gemm_placement.py --out "$OUT/placement" > "$OUT/placement/run.log" 2>&1
  echo "placement exit $? ($(left 0) s)"; tail -25 "$OUT/placement/run.log"
  B=$(( $(left 575) - 15 ))
  timeout $B $PY calibration/validation/kernelbench/measure_h200.py --out "$OUT/kb" --jobs 16 --max-jobs 1 \
    --budget-s $(( B - 10 )) --compile-budget-s $(( B - 150 )) > "$OUT/kb_measure.log" 2>&1
  echo "kb exit $? ($(left 0) s)"; tail -15 "$OUT/kb_measure.log"
  ;;
*H100*)
  if [ "${2:-base}" = none ] || [ "${2:-base}" = hop12 ] || [ "${2:-base}" = march ] || [ "${2:-base}" = hop12b ]; then
    echo "an H100: nothing to do here (WHAT=none)"
  elif [ "${2:-base}" = hopper ]; then
    timeout 400 $PY calibration/validation/measure_hopper.py --out "$OUT/hopper" --reps 50 --flush-mode read > "$OUT/hopper_run.log" 2>&1
    echo "hopper exit $? ($(left 0) s)"; tail -15 "$OUT/hopper_run.log"
  else
  mkdir -p "$OUT/micro" "$OUT/ext"
  timeout 150 $PY calibration/microbenchmarks/run_cuda.py --out "$OUT/micro" --budget-s 130 > "$OUT/micro/run.log" 2>&1
  echo "run_cuda exit $? ($(left 0) s)"; tail -5 "$OUT/micro/run.log"
  for b in mem_paths loaded_latency; do
    nvcc -O3 -arch=sm_90 -o /tmp/$b calibration/microbenchmarks/cuda/$b.cu > "$OUT/micro/${b}_build.log" 2>&1 &&
      (cd "$OUT/micro" && timeout 90 /tmp/$b > "$OUT/micro/$b.json" 2> "$OUT/micro/${b}_stderr.txt")
    echo "$b exit $? ($(left 0) s)"
  done
  timeout $(( $(left 580) )) bash calibration/validation/device/h200_ext.sh "$OUT/ext"
  echo "ext exit $? ($(left 0) s)"
  fi
  ;;
*) echo "unexpected GPU: $NAME" ;;
esac
# Only 8 files come back from a call: everything in one archive (the KernelBench extension
# builds, kept for a later call's --prebuilt, stay out of it).
tar czf /tmp/session_all.tgz -C "$OUT" --exclude='kb_ext.tar.xz.*' . && rm -rf "${OUT:?}"/* && mv /tmp/session_all.tgz "$OUT/all.tgz"
ls -la "$OUT"
