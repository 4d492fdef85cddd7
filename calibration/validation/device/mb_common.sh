# Sourced by the one-call device scripts (s6_*.sh): what each repeated on its own.
#   mb_smi OUT          records the GPU (name, driver, clocks, memory clock, temperature) and
#                       nvcc's version into OUT/smi.txt (call again at the end: clocks after the load)
#   mb_run NAME SECONDS OUT [ARGS...]
#                       builds calibration/microbenchmarks/cuda/NAME.cu for sm_90a with nvcc -O3
#                       (log in OUT/NAME.build.log, SASS in OUT/NAME.sass when cuobjdump is there),
#                       runs it with ARGS under a SECONDS limit, stdout to OUT/NAME.json (or
#                       OUT/NAME.$MB_EXT when MB_EXT is set), stderr to OUT/NAME.err; returns the
#                       run's exit status (1 when the build failed).
MB_SRC=calibration/microbenchmarks/cuda
MB_NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
MB_CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
MB_BIN=$(mktemp -d)

mb_smi() {
  { date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv
    [ -n "$MB_NVCC" ] && "$MB_NVCC" --version | tail -1
  } >> "$1/smi.txt" 2>&1
}

mb_run() {
  local name=$1 seconds=$2 out=$3
  shift 3
  if ! "$MB_NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o "$MB_BIN/$name" "$MB_SRC/$name.cu" \
      > "$out/$name.build.log" 2>&1; then
    echo "build $name failed"; cat "$out/$name.build.log"; return 1
  fi
  [ -n "$MB_CUOBJDUMP" ] && "$MB_CUOBJDUMP" -sass "$MB_BIN/$name" > "$out/$name.sass" 2>/dev/null
  timeout "$seconds" "$MB_BIN/$name" "$@" > "$out/$name.${MB_EXT:-json}" 2> "$out/$name.err"
  local rc=$?
  echo "$name exit $rc"
  return $rc
}
