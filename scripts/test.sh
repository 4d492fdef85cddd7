#!/usr/bin/env bash
# The README's second command, and what CI runs: install dependencies (no-op when present),
# check the C++ formatting, build, and run the whole test suite (GoogleTest through ctest, CLI
# tests, Python tests).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/check-format.sh
./scripts/build.sh
./scripts/install-python.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# The Python package (tests/python; includes a local Ray instance and Triton compiles).
python3 -m pytest -q -p no:cacheprovider tests/python
