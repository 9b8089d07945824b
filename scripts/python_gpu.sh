#!/usr/bin/env bash
# The Python side on a GPU machine, in one command: build the extension with plain CMake from this
# project (that machine has no PyPI and maybe no scikit-build-core: the package is used from the
# build tree on PYTHONPATH), then the whole pytest suite (GPU tests included), the Numba lab
# beside its C++ twins, the package's benchmark (tilegemm.gemm at 4096^3 beside the C++ bench and
# torch.matmul; call overhead at 64^3), and the README example. Each step's log, the results
# (named <GPU>_<date>_... as in bench/results/) and summary.txt go into OUTDIR.
# Needs: nvcc, CMake, python3 with torch, cupy, numba(-cuda), nanobind, pytest; .deps/cutlass.
# Usage: scripts/python_gpu.sh OUTDIR      env: ARCH (90a) BUILD (build-pygpu) JOBS (nproc)
#                                               PYTHON (python3) CMAKE_ARGS (-DTILEGEMM_WERROR=OFF)
# Host warnings do not stop this build by default: that machine's compiler is not the one whose
# warnings `make test` holds the C++ code to, and this run is about the Python side.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: scripts/python_gpu.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1" && OUT=$(cd "$1" && pwd)
ROOT=$(pwd)
PY=${PYTHON:-python3}
BUILD=${BUILD:-build-pygpu}
ARCH=${ARCH:-90a}
JOBS=${JOBS:-$(nproc)}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '-')
TAG="${GPU:-unknown-GPU}_$(date -u +%Y-%m-%d)"
summary="$OUT/summary.txt"
: >"$summary"
failed=()

# step NAME CMD...: CMD's output into OUTDIR/NAME.log; a failure is named, with its log's tail.
step() {
  local name=$1 t0=$SECONDS rc
  shift
  echo "== $name: $*" | sed "s#$ROOT/##g" >"$OUT/$name.log"
  "$@" >>"$OUT/$name.log" 2>&1
  rc=$?
  echo "step $name: exit $rc, $((SECONDS - t0)) s" | tee -a "$summary"
  if [ $rc -ne 0 ]; then
    failed+=("$name")
    echo "FAILED: $name (exit $rc); the end of $OUT/$name.log:" | tee -a "$summary"
    tail -25 "$OUT/$name.log" | sed 's/^/    /' | tee -a "$summary"
  fi
  return $rc
}

versions() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nvcc --version | tail -1
  cmake --version | head -1
  "$PY" - <<'PY'
import importlib, sys
print("python", sys.version.split()[0])
for name in ("torch", "cupy", "numpy", "numba", "numba_cuda", "nanobind", "pytest",
             "scikit_build_core"):
    try:
        mod = importlib.import_module(name)
        print(name, getattr(mod, "__version__", "?"))
    except Exception as e:
        print(name, "NOT AVAILABLE:", type(e).__name__, e)
PY
  # Whether numba-cuda works here is printed, not assumed (the Numba steps skip or fail visibly).
  "$PY" -c "import numba.cuda; print('numba.cuda.is_available():', numba.cuda.is_available()); numba.cuda.detect()" \
    || echo "numba.cuda: NOT usable here (the Numba GPU tests will report SKIPPED)"
}

step versions versions
nanobind_dir=$("$PY" -m nanobind --cmake_dir 2>/dev/null) || nanobind_dir=""
step configure cmake -S . -B "$BUILD" -DTILEGEMM_PYTHON=ON -DTILEGEMM_BUILD_TESTS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DPython_EXECUTABLE="$(command -v "$PY")" \
  ${nanobind_dir:+-Dnanobind_DIR="$nanobind_dir"} ${CMAKE_ARGS--DTILEGEMM_WERROR=OFF} \
  && step build cmake --build "$BUILD" -j "$JOBS" --target _tilegemm tilegemm_cli
if [ ${#failed[@]} -gt 0 ]; then
  echo "python_gpu: the build failed; nothing to test. Logs: $OUT" | tee -a "$summary"
  exit 1
fi
export PYTHONPATH="$ROOT/$BUILD/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1

step import "$PY" -c "import tilegemm; print(tilegemm.__file__.replace('$ROOT/', '')); print('version', tilegemm.__version__, 'devices', [d['name'] for d in tilegemm.devices()])"
step pytest "$PY" -m pytest python/tests -ra -p no:cacheprovider --junitxml="$OUT/pytest.xml"
tail -1 "$OUT/pytest.log" | tee -a "$summary"
step numba_lab "$PY" -m tilegemm.numba_lab --json "$OUT/${TAG}_numba-lab.json"
step benchmark "$PY" python/benchmarks/gemm_python.py --out "$OUT" \
  --cli "$ROOT/$BUILD/tools/tilegemm/tilegemm"
sed -n '/^## /,$p' "$OUT/benchmark.log" | tee -a "$summary" >/dev/null
step readme_example "$PY" python/examples/quickstart.py
# The Numba lab's table as a results file beside the benchmark's.
{ echo "# Seed 004's Numba kernels beside their C++ twins, $TAG"; echo; echo '```';
  sed -n '/^Verification on the GPU/,$p' "$OUT/numba_lab.log"; echo '```'; } >"$OUT/${TAG}_numba-lab.md"

echo | tee -a "$summary"
if [ ${#failed[@]} -gt 0 ]; then
  echo "python_gpu: FAILED steps: ${failed[*]} (logs in $OUT)" | tee -a "$summary"
  exit 1
fi
echo "python_gpu: all steps passed (logs and results in $OUT)" | tee -a "$summary"
