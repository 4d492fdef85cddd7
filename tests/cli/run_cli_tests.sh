#!/usr/bin/env bash
# CLI contract tests: exit codes and the words in error messages, through the real binary.
# usage: run_cli_tests.sh KERNSIM_BINARY TESTS_DATA_DIR
set -u
BIN="$1"; DATA="$2"
fails=0
check() {  # check NAME EXPECTED_RC NEEDLE -- ARGS...
  local name="$1" want_rc="$2" needle="$3"; shift 4
  local out rc
  out=$("$BIN" "$@" 2>&1); rc=$?
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc; output: $out"; fails=$((fails+1)); return
  fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$out"; then
    echo "FAIL $name: output lacks '$needle': $out"; fails=$((fails+1)); return
  fi
  echo "ok   $name"
}
check version        0 "kernsim "        -- --version
check no_args        2 "usage"           --
check unknown_cmd    2 "unknown command" -- frobnicate
check unknown_opt    2 "unknown option"  -- run x.json --fast
check devices        0 "mi300x"          -- devices
check schema         0 "l2.hit_latency_cycles" -- devices --schema
check device_prov    0 "confidence:"     -- device h200
check device_values  0 "dram.channels                            96             estimated" -- device h200
check missing_spec   3 "no_such.json"    -- run "$DATA/specs/no_such.json" --arch h200
check bad_grid       3 "\`grid\`"        -- run "$DATA/specs/bad_grid.json" --arch h200
check big_block      3 "4096"            -- run "$DATA/specs/big_block.json" --arch h200
check unknown_arch   2 "unknown device"  -- run "$DATA/specs/big_block.json" --arch h900
check both_devices   2 "not both"        -- run "$DATA/specs/big_block.json" --arch h200 --device x.yaml
check bad_device     3 "sm.cnt"          -- run "$DATA/specs/big_block.json" --device "$DATA/devices/typo.yaml"
check spec_no_value  2 "needs a value"   -- run "$DATA/specs/big_block.json" --arch
# one launch path: list, compile and the detail budget go through the device's target on both vendors
CU="$DATA/../kernels/cuda/stream.cu"; HIP="$DATA/../kernels/hip/stream.hip"; SPEC="$DATA/../kernels/hip/specs/triad_f32.json"
check list_cu        0 "registers"       -- list "$CU" --arch h200
check list_hip       0 "VGPRs"           -- list "$HIP" --arch mi300x
check list_no_file   2 "list needs exactly one source FILE" -- list --arch h200
check compile_cu     0 ".entry triad_f32" -- compile "$CU" --arch h200
check compile_hip    0 "triad_f32:"      -- compile "$HIP" --arch mi355x
check compile_wrong  4 "AMD source"      -- compile "$HIP" --arch h200
# a kernel source where a launch spec belongs says how to write one; `kernsim spec` writes a starter spec that runs
check run_source     2 "kernsim spec"    -- run "$CU" --arch h200
check spec_no_kernel 2 "spec needs --kernel" -- spec "$CU" --grid 1 --block 1
check spec_bad_grid  2 "--grid needs"    -- spec "$CU" --kernel triad_f32 --grid 0 --block 1
check spec_starter   0 '"spec_version": 2' -- spec "$CU" --kernel triad_f32 --grid 4 --block 256
# a CUDA source on an AMD part is ported; its 32-lane-warp assumptions are warnings in the text and the JSON
check port_text      0 "warning  warp32-mask" -- run "$DATA/port/warp32.json" --arch mi300x
check port_json      0 '"name": "warp32-ballot-width"' -- run "$DATA/port/warp32.json" --arch mi355x --json
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# compile settings: -D/-I/--std/--flag reach clang; the spec's `compile` object is checked field by field
printf '#include "scale.h"\nextern "C" __global__ void k(float* x) { x[threadIdx.x] *= SCALE * kBase; }\n' > "$TMP/k.cu"
mkdir -p "$TMP/inc"; echo 'constexpr float kBase = 1.0f;' > "$TMP/inc/scale.h"
check compile_define 0 "0f40A00000"      -- compile "$TMP/k.cu" --arch h200 -I "$TMP/inc" -D SCALE=5.0f --std c++20 --flag -ffast-math
check compile_glued  0 "0f40400000"      -- compile "$TMP/k.cu" --arch h200 "-I$TMP/inc" -DSCALE=3.0f
check compile_no_def 4 "SCALE"           -- compile "$TMP/k.cu" --arch h200 -I "$TMP/inc"
check compile_bad_std 3 "unknown language standard" -- compile "$TMP/k.cu" --arch h200 --std c++99
check compile_bad_flag 3 "kernsim sets this itself" -- compile "$TMP/k.cu" --arch h200 --flag -o
check compile_bad_inc 2 "not a directory" -- compile "$TMP/k.cu" --arch h200 -I "$TMP/nowhere"
printf '{"source": "k.cu", "kernel": "k", "grid": [1], "block": [32], "args": [{"buffer": "f32", "count": 32}],\n "compile": {"defines": {"SCALE": "2.0f"}, "include_dirs": ["inc"], "std": "c++2x"}}\n' > "$TMP/bad_std.json"
check spec_bad_std   3 "compile.std"     -- run "$TMP/bad_std.json" --arch h200
sed 's/"c++2x"/"c++20"/' "$TMP/bad_std.json" > "$TMP/good.json"
check spec_compile   0 "time"            -- run "$TMP/good.json" --arch h200
check run_cli_define 0 "time"            -- run "$TMP/good.json" --arch h200 -D EXTRA
KERNSIM_DETAIL_BUDGET=lots check budget_env_bad 2 "KERNSIM_DETAIL_BUDGET must be a positive integer" -- run "$SPEC" --arch mi300x
# the fast tier (--tier fast): the report says so; what a sample cannot give, and parts without fitted coefficients, say why
CUSPEC="$DATA/../kernels/cuda/specs/triad_f32.json"
check fast_tier      0 '"tier": "fast"'  -- run "$CUSPEC" --arch h200 --tier fast --json
check fast_bound     0 "bound"           -- run "$CUSPEC" --arch h200 --tier fast
check fast_bad_tier  2 "must be \`detailed\` or \`fast\`" -- run "$CUSPEC" --arch h200 --tier quick
check fast_full      2 "fast tier"       -- run "$CUSPEC" --arch h200 --tier fast --full
check fast_amd       5 "fast tier"       -- run "$SPEC" --arch mi300x --tier fast
check fast_unfitted  5 "fast.overlap_exponent" -- run "$CUSPEC" --arch b200 --tier fast
# --cache warm: the report says which L2 the launch started with (AMD: the L2s and MALL); the fast tier refuses it
check cache_warm     0 '"cache": "warm"' -- run "$CUSPEC" --arch h200 --cache warm --json
check cache_replay   0 "replayed untimed" -- run "$CUSPEC" --arch h200 --cache warm --json
check cache_bad      2 "must be \`cold\`, \`cold-dirty\` or \`warm\`" -- run "$CUSPEC" --arch h200 --cache tepid
# --cache cold-dirty: a write flush's dirty lines are written back by the launch (DRAM writes it did not make)
check cache_dirty    0 '"cache": "cold-dirty"' -- run "$CUSPEC" --arch h200 --cache cold-dirty --json
check cache_dfast    2 "dirty L2"        -- run "$CUSPEC" --arch h200 --tier fast --cache cold-dirty
check cache_amd      0 "cache warm: the L2s and MALL" -- run "$SPEC" --arch mi300x --cache warm --json
check cache_fast     2 "warm L2"         -- run "$CUSPEC" --arch h200 --tier fast --cache warm
KERNSIM_DETAIL_BUDGET=lots check budget_env_bad_nv 2 "got \`lots\`" -- run "$DATA/../kernels/cuda/specs/triad_f32.json" --arch h200
# calibrate: a perturbed L1 latency comes back to the measured 32 cycles; bad input names itself
MEAS="$DATA/../../calibration/data/h200/cuda_microbench.json"
check cal_unknown_param 2 "unknown parameter \`l1.hit_latncy_cycles\`" -- calibrate "$MEAS" --base h200 --params l1.hit_latncy_cycles
check cal_int_param  2 "integer"         -- calibrate "$MEAS" --base h200 --params sm.count
check cal_bad_json   3 "bad_measurement.json:3:" -- calibrate "$DATA/calibration/bad_measurement.json" --base h200
check cal_no_base    2 "--base"          -- calibrate "$MEAS"
check cal_fit        0 "wrote"           -- calibrate "$MEAS" --base "$DATA/devices/h200_l1_perturbed.yaml" --params l1.hit_latency_cycles -o "$TMP/fit.yaml" --threads 1
check cal_fit_loads  0 "KERNSIM_FIT"     -- device --device "$TMP/fit.yaml"
line=$(grep -m1 "hit_latency_cycles: {value: " "$TMP/fit.yaml")  # l1 comes before l2
v=$(sed -n 's/.*{value: \([0-9.]*\),.*/\1/p' <<<"$line")
if ! grep -q 'source: "KERNSIM_FIT", confidence: fitted' <<<"$line" || ! awk -v v="$v" 'BEGIN{exit !(v > 31 && v < 33.5)}'; then
  echo "FAIL cal_fit_value: l1.hit_latency_cycles not fitted to ~32: $line"; fails=$((fails+1))
else
  echo "ok   cal_fit_value"
fi
# runaway launches: a spin on a flag nobody writes is an endless loop, a long loop meets --time-limit
cat >"$TMP/runaway.ptx" <<'PTX'
.version 8.0
.target sm_90a
.address_size 64
.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd1, %rd1;
$L_spin:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L_spin;
  ret;
}
.visible .entry count(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, 0;
$L_count:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, -1;
  @%p1 bra $L_count;
  ret;
}
PTX
for k in spin count; do
  echo "{\"source\": \"runaway.ptx\", \"kernel\": \"$k\", \"grid\": 1, \"block\": 32, \"args\": [{\"buffer\": \"u32\", \"count\": 1}]}" >"$TMP/$k.json"
done
check endless_loop   6 "endless loop at" -- run "$TMP/spin.json" --arch h200
check endless_full   6 "which nothing writes" -- run "$TMP/spin.json" --arch h200 --full
check time_limit     6 "wall-time limit of 0.5 s" -- run "$TMP/count.json" --arch h200 --time-limit 0.5
check time_limit_how 6 "--time-limit SECONDS" -- run "$TMP/count.json" --arch h200 --full --time-limit 0.3
check time_limit_bad 2 "--time-limit needs a number of seconds" -- run "$TMP/count.json" --arch h200 --time-limit soon
check time_limit_neg 2 "--time-limit needs a number of seconds" -- run "$TMP/count.json" --arch h200 --time-limit -1
# views: --trace writes a Chrome/Perfetto trace, --json has by_pc; an unwritable trace path is bad input
SAXPY="$DATA/../../examples/saxpy/saxpy.json"
check trace_bad_path 3 "$TMP/no_dir/t.json" -- run "$SAXPY" --arch h200 --trace "$TMP/no_dir/t.json"
check trace_no_value 2 "needs a value"   -- run "$SAXPY" --arch h200 --trace
if ! "$BIN" run "$SAXPY" --arch h200 --json --trace "$TMP/t.json" >"$TMP/r.json" 2>"$TMP/err"; then
  echo "FAIL trace_saxpy: $(cat "$TMP/err")"; fails=$((fails+1))
elif ! out=$(python3 "$(dirname "$0")/check_trace.py" "$TMP/t.json" "$TMP/r.json"); then
  echo "FAIL trace_saxpy: $out"; fails=$((fails+1))
else
  echo "ok   trace_saxpy"
fi
if [ "$fails" -ne 0 ]; then echo "$fails CLI test(s) failed"; exit 1; fi
echo "all CLI tests passed"
