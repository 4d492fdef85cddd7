#!/usr/bin/env bash
# The README's first command: install dependencies, build kernsim, install the Python package,
# put `kernsim` on PATH, and run the demo kernel (SAXPY, 1M elements) on the default device (h200), printing its report.
# Safe to re-run: every step is idempotent and incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

./scripts/install-deps.sh
./scripts/build.sh
./scripts/install-python.sh   # pip install . -> `import kernsim`

# Put the binary on PATH: /usr/local/bin when writable, else ~/.local/bin.
BIN_DIR=/usr/local/bin
if [ ! -w "$BIN_DIR" ]; then BIN_DIR="$HOME/.local/bin"; mkdir -p "$BIN_DIR"; fi
ln -sf "$ROOT/build/kernsim" "$BIN_DIR/kernsim"
echo "setup: kernsim linked into $BIN_DIR ($(command -v kernsim || echo "add $BIN_DIR to PATH"))"

echo "setup: demo — kernsim run examples/saxpy/saxpy.json --arch h200"
"$ROOT/build/kernsim" run examples/saxpy/saxpy.json --arch h200
