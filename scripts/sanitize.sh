#!/usr/bin/env bash
# Builds the library and the GoogleTest suite with AddressSanitizer + UndefinedBehaviorSanitizer
# (clang-22, build-asan/) and runs the unit tests under them (a report aborts the test). Opt-in,
# not part of scripts/test.sh: the instrumented build of the whole tree is the cost (see
# docs/limits.md, "Fuzzing").
#   scripts/sanitize.sh                  # every unit test
#   scripts/sanitize.sh 'Untrusted.*'    # a gtest filter
set -euo pipefail
cd "$(dirname "$0")/.."
FILTER=${1:-*}
JOBS=${KERNSIM_JOBS:-$(nproc)}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
if [ ! -f build-asan/build.ninja ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DKERNSIM_SANITIZE=ON -DKERNSIM_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-asan -j "$JOBS" --target kernsim_unit_tests
# leaks: LLVM's and TBB's process-lifetime singletons are not findings
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
KERNSIM_DATA_DIR=$(pwd) build-asan/tests/kernsim_unit_tests --gtest_filter="$FILTER"
