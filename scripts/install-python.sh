#!/usr/bin/env bash
# Builds and installs the Python package (`pip install .`: scikit-build-core + nanobind) into the
# current python3, so that `python3 -c "import kernsim"` works. Incremental: the CMake build
# lives in build-pip/ and ccache is used when present, so re-running after a change rebuilds only
# what changed. Uses the build tools install-deps.sh installed (no build isolation: no download).
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_BUILD_PARALLEL_LEVEL=${KERNSIM_JOBS:-$(nproc)}
# ccache keys on paths relative to the tree: build/ and build-pip/ (pip install .) share objects.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
python3 -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps .
python3 -c "import kernsim; print('install-python: kernsim', kernsim.__version__, 'from', kernsim.__file__)"
