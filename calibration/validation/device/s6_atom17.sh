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
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
for n in atomic_units sfu_pipe; do
  mb_run "$n" 240 "$OUT"; tail -c 400 "$OUT/$n.json"; echo
done
mb_smi "$OUT"
