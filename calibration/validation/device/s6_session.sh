#!/usr/bin/env bash
# One device call that runs every one-call microbenchmark script named on the command line
# (calibration/validation/device/s6_*.sh and s7_*.sh: each builds its microbenchmark and writes into the
# directory it is given), each under its own time limit, then packs everything into OUT/all.tgz
# (a device call brings back only a few files).
#   bash calibration/validation/device/s6_session.sh OUT [SECONDS_EACH=90] NAME [NAME ...]
# NAME is a script's middle part: "atomics" runs s6_atomics.sh (or s7_atomics.sh) into OUT/atomics. "hop12b" and
# "march" run the earlier scripts (L2 hot lines, the marching stencil's halo) the same way.
set -u
OUT=${1:?output directory}
EACH=${2:-90}
shift 2
mkdir -p "$OUT/s"
D=calibration/validation/device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv \
  > "$OUT/s/smi.txt" 2>&1
cat "$OUT/s/smi.txt"
T0=$(date +%s)
for name in "$@"; do
  mkdir -p "$OUT/s/$name"
  case "$name" in
  hop12b) cmd=(bash "$D/h200_hop12b.sh" "$OUT/s/$name") ;;
  march)
    cmd=(bash -c "nvcc -O3 -arch=sm_90 -o /tmp/march_halo calibration/microbenchmarks/cuda/march_halo.cu \
      && /tmp/march_halo > '$OUT/s/$name/march_halo.txt'")
    ;;
  *)
    script="$D/s6_$name.sh"
    [ -f "$script" ] || script="$D/s7_$name.sh"
    if [ ! -f "$script" ]; then
      echo "$name: no $D/s6_$name.sh or s7_$name.sh" | tee "$OUT/s/$name/missing.txt"
      continue
    fi
    cmd=(bash "$script" "$OUT/s/$name")
    ;;
  esac
  timeout "$EACH" "${cmd[@]}" > "$OUT/s/$name/run.log" 2>&1
  echo "$name exit $? ($(( $(date +%s) - T0 )) s)"
  tail -15 "$OUT/s/$name/run.log"
done
tar czf "$OUT/all.tgz" -C "$OUT/s" . && rm -rf "${OUT:?}/s"
ls -la "$OUT"
