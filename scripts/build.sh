#!/usr/bin/env bash
# Configure (once) and build kernsim in ./build with Ninja and ccache when present.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${KERNSIM_JOBS:-$(nproc)}
# ccache keys on paths relative to the tree: build/ and build-pip/ (pip install .) share objects.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j "$JOBS"
