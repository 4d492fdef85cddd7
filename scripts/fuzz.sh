#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) in build-fuzz/ with clang-22 and
# -fsanitize=fuzzer,address,undefined, replays every regression input, then fuzzes each target
# for SECONDS (default 5) on one core from its seed corpus. A crash, sanitizer report, internal
# error, leak, timeout (-timeout, 10 s an input) or out-of-memory (-rss_limit_mb) fails the run;
# the input is left in build-fuzz/artifacts/. New corpus entries go to build-fuzz/corpus/, never
# to the committed seeds.
#   scripts/fuzz.sh                 # CI: 5 s per target
#   scripts/fuzz.sh 600             # a longer local run: 10 min per target
#   FUZZ_TARGETS="ptx code_object" scripts/fuzz.sh 60
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-5}
TARGETS=${FUZZ_TARGETS:-"ptx code_object amdgcn_decode launch_spec device_file"}
JOBS=${KERNSIM_JOBS:-$(nproc)}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
# build-fuzz/ compiles with -g, and ccache then hashes the working directory unless told not to: a
# fresh checkout elsewhere (CI's) would miss every object. Debug paths are relative (BASEDIR).
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
if ! [ -f /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  echo "fuzz: libFuzzer for clang 22 is missing (the Debian package libclang-rt-22-dev; scripts/install-deps.sh installs it)" >&2
  exit 3
fi
# The unit tests are configured too: scripts/sanitize.sh builds them in this tree, so they reuse
# the library objects compiled here with the same sanitizer flags.
if ! grep -qs '^KERNSIM_BUILD_TESTS:BOOL=ON' build-fuzz/CMakeCache.txt; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DKERNSIM_FUZZ=ON -DKERNSIM_BUILD_TESTS=ON -DKERNSIM_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-fuzz -j "$JOBS" --target kernsim_fuzzers
mkdir -p build-fuzz/artifacts
export KERNSIM_DATA_DIR=$(pwd)
status=0
for t in $TARGETS; do
  bin=build-fuzz/tests/fuzz/fuzz_$t
  opts=(-rss_limit_mb=4096 -timeout=10 -artifact_prefix=build-fuzz/artifacts/$t- -print_final_stats=1)
  # CI: a fixed seed, so that a run finds what the previous run on the same tree found (a new
  # finding comes from a change, not from chance); FUZZ_SEED=0 picks one at random
  seed=${FUZZ_SEED:-1}
  [ "$seed" != 0 ] && opts+=(-seed="$seed")
  reg=(tests/fuzz/regressions/$t/*)
  if [ -e "${reg[0]}" ]; then
    if ! "$bin" "${opts[@]}" "${reg[@]}" >build-fuzz/artifacts/$t.regressions.log 2>&1; then
      echo "fuzz: $t: a regression input fails again (build-fuzz/artifacts/$t.regressions.log)"
      status=1
      continue
    fi
  fi
  mkdir -p build-fuzz/corpus/$t
  if "$bin" "${opts[@]}" -max_total_time="$SECONDS_PER_TARGET" build-fuzz/corpus/$t tests/fuzz/corpus/$t >build-fuzz/artifacts/$t.log 2>&1; then
    echo "fuzz: $t: $(grep -E '^stat::number_of_executed_units' build-fuzz/artifacts/$t.log | awk '{print $2}') inputs," \
         "$(grep -oE 'cov: [0-9]+' build-fuzz/artifacts/$t.log | tail -1) edges, no finding (${SECONDS_PER_TARGET} s)"
  else
    echo "fuzz: $t: FINDING — $(grep -E 'ERROR|fuzz:' build-fuzz/artifacts/$t.log | head -1)"
    grep -E 'Test unit written|artifact' build-fuzz/artifacts/$t.log | tail -1
    status=1
  fi
done
exit $status
