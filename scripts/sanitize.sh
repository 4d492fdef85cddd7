#!/usr/bin/env bash
# The GoogleTest unit tests under AddressSanitizer + UndefinedBehaviorSanitizer (issue 16 item 3;
# scripts/test.sh, so CI, runs it after scripts/fuzz.sh). They are built in build-fuzz/, the tree
# scripts/fuzz.sh configures (clang-22, -fsanitize=fuzzer-no-link,address,undefined): the library
# objects the fuzz targets were built from serve the tests too, so the cost is the test files and
# the run, not a second instrumented build of the tree. A sanitizer report aborts the test and
# fails the script.
#   scripts/sanitize.sh                  # every unit test
#   scripts/sanitize.sh 'Untrusted.*'    # a gtest filter
set -euo pipefail
cd "$(dirname "$0")/.."
FILTER=${1:-*}
JOBS=${KERNSIM_JOBS:-$(nproc)}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
# build-fuzz/ compiles with -g, and ccache then hashes the working directory unless told not to: a
# fresh checkout elsewhere (CI's) would miss every object. Debug paths are relative (BASEDIR).
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
if ! grep -qs '^KERNSIM_BUILD_TESTS:BOOL=ON' build-fuzz/CMakeCache.txt; then
  echo "sanitize: build-fuzz/ is not configured with the unit tests; run scripts/fuzz.sh first" >&2
  exit 3
fi
cmake --build build-fuzz -j "$JOBS" --target kernsim_unit_tests
# leaks: LLVM's and TBB's process-lifetime singletons are not findings
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
start=$(date +%s)
KERNSIM_DATA_DIR=$(pwd) build-fuzz/tests/kernsim_unit_tests --gtest_brief=1 --gtest_filter="$FILTER"
echo "sanitize: unit tests under ASan+UBSan passed in $(( $(date +%s) - start )) s"
