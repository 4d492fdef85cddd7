#!/usr/bin/env bash
# One device call (issue 17 item 1, atomics on few lines and low-occupancy SFU work): the L2
# atomic units' throughput per address / line / 512-byte span / across spans for red/atom add.u32,
# add.f32 and cas, from one SM and from every SM (atomic_units.cu, ~20-40 s), and what one or a few
# warps see from the MUFU pipe (sfu_pipe.cu, a few seconds). Under 2 minutes on an H100 or H200.
#   bash calibration/validation/device/s6_atom17.sh OUTDIR
# Writes OUTDIR/smi.txt, atomic_units.json, sfu_pipe.json (+ .err, and the SASS of both).
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT/smi.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/smi.txt" 2>&1
cat "$OUT/smi.txt"
D=calibration/microbenchmarks/cuda
B=$(mktemp -d)
for n in atomic_units sfu_pipe; do
  "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o "$B/$n" "$D/$n.cu" > "$OUT/$n.build.log" 2>&1 || { echo "build $n failed"; cat "$OUT/$n.build.log"; continue; }
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -sass "$B/$n" > "$OUT/$n.sass" 2>/dev/null
  timeout 240 "$B/$n" > "$OUT/$n.json" 2> "$OUT/$n.err"
  echo "$n exit $?"; tail -c 400 "$OUT/$n.json"; echo
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/smi.txt" 2>&1
