#!/usr/bin/env bash
# Installs what a fresh machine lacks to build tilegemm: the Debian packages of the build's
# libraries (CLI11, nlohmann_json, GoogleTest) and of Python's venv and headers, the CUTLASS/CuTe
# headers, pinned, from the nvidia-cutlass package on PyPI into .deps/cutlass, and the Python
# package's build and test tools, pinned, from PyPI into the virtual environment .venv (both
# ignored by git). Idempotent: does nothing that is already done. The CUDA toolkit itself (nvcc,
# cuBLAS) is expected to be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

CUTLASS_VERSION=4.2.0.0
DEBIAN_PACKAGES=(cmake make g++ libcli11-dev nlohmann-json3-dev libgtest-dev python3-pip unzip
                 python3-venv python3-dev)
# The Python package's build backend and bindings, its test runner, and the Numba lab. numpy stays
# below 2.5, which numba-cuda 0.30.4's CUDA target does not import under (np.row_stack is gone).
# The simulator needs no GPU; a CUDA 13 GPU machine also wants numba-cuda[cu13].
PYTHON_PACKAGES=(scikit-build-core==1.1.2 nanobind==3.1.0 pytest==9.2.0 numpy==2.4.6
                 numba==0.68.1 numba-cuda==0.30.4)
VENV=.venv

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
  done
fi
command -v nvcc >/dev/null 2>&1 || { echo "setup: nvcc not found: install the CUDA toolkit" >&2; exit 1; }

stamp=.deps/cutlass/VERSION
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$CUTLASS_VERSION" ]; then
  echo "setup: fetching CUTLASS headers (nvidia-cutlass==$CUTLASS_VERSION)" >&2
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" \
    "nvidia-cutlass==$CUTLASS_VERSION"
  rm -rf .deps/cutlass && mkdir -p .deps/cutlass
  unzip -q "$tmp"/nvidia_cutlass-*.whl 'cutlass_library/source/include/*' -d "$tmp/x"
  mv "$tmp/x/cutlass_library/source/include" .deps/cutlass/include
  echo "$CUTLASS_VERSION" > "$stamp"
  rm -rf "$tmp"
fi
stamp="$VENV/tilegemm-packages.txt"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${PYTHON_PACKAGES[*]}" ]; then
  echo "setup: installing ${PYTHON_PACKAGES[*]} into $VENV" >&2
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PYTHON_PACKAGES[@]}"
  echo "${PYTHON_PACKAGES[*]}" > "$stamp"
fi
echo "setup: ok" >&2
