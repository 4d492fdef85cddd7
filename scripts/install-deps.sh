#!/usr/bin/env bash
# Installs every Debian package kernsim needs to build, test and run. Idempotent and
# non-interactive: packages already present are skipped, so re-running costs seconds.
# Only Debian's own registry is used (LLVM 22 comes from bookworm-security).
set -euo pipefail

PKGS=(
  cmake ninja-build ccache pkg-config
  clang-22 llvm-22-dev libclang-22-dev lld-22 clang-format-22 clang-tidy-22 libclang-rt-22-dev
  libeigen3-dev libtbb-dev libboost-graph-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev nlohmann-json3-dev zlib1g-dev libzstd-dev libxml2-dev libedit-dev libffi-dev
  libamdhip64-dev rocm-device-libs
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

install_python() {
  # Python packages (PyPI): numpy for the test scripts; pytest, scikit-build-core and nanobind to
  # build and test the Python package; ray and triton for kernsim.distributed and Triton kernels
  # (triton also ships nvdisasm, which the CUDA frontend uses to see how ptxas unrolled loops);
  # torch (PyPI's CUDA build, used on the CPU) and pyyaml for kernsim.kernelbench
  # (docs/kernelbench.md); pybind11's headers for HipKittens' sources (run_kittens.py,
  # docs/thunderkittens.md). Each is installed only when missing; installing torch keeps the
  # triton already installed (its version is pinned on the same command line).
  local need
  # shellcheck disable=SC2207
  need=($(python3 -c '
import importlib.util
mods = {"numpy": "numpy", "pytest": "pytest", "scikit_build_core": "scikit-build-core",
        "nanobind": "nanobind", "ray": "ray", "triton": "triton", "yaml": "pyyaml", "torch": "torch",
        "pybind11": "pybind11"}
print(" ".join(pkg for mod, pkg in mods.items() if importlib.util.find_spec(mod) is None))'))
  if [ ${#need[@]} -gt 0 ]; then
    local pin
    pin=$(python3 -c 'import importlib.metadata as m
try: print("triton==" + m.version("triton"))
except m.PackageNotFoundError: pass')
    echo "install-deps: pip install ${need[*]} ${pin}"
    # shellcheck disable=SC2086
    python3 -m pip install -q --disable-pip-version-check "${need[@]}" ${pin}
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  install_python
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_python
echo "install-deps: done"
