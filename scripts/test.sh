#!/usr/bin/env bash
# The README's second command, and what CI runs: install dependencies (no-op when present),
# check the C++ formatting, build, and run the whole test suite (GoogleTest through ctest, CLI
# tests, Python tests), then a short fuzzing run of every parser and loader and the unit tests
# under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/check-format.sh
./scripts/build.sh
./scripts/install-python.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# Every parser and loader under libFuzzer + ASan/UBSan: the regression inputs, then 5 s a target
# (build-fuzz/, about 2 minutes to build from scratch; docs/limits.md "Fuzzing").
./scripts/fuzz.sh 5
# The unit tests again, built with ASan + UBSan in build-fuzz/ beside the fuzz targets (their library
# objects are shared; about 5-9 minutes on this machine).
./scripts/sanitize.sh
# The Python package (tests/python; includes a local Ray instance and Triton compiles).
python3 -m pytest -q -p no:cacheprovider tests/python
