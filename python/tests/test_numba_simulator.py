"""The seed's Numba kernels on Numba's CUDA simulator (no GPU): `python -m tilegemm.numba_lab`
runs in a child process with NUMBA_ENABLE_CUDASIM=1 (the variable must be set before Numba is
imported, and a GPU run in this process must not see it), verifying every kernel at small sizes,
most of them not multiples of any tile, against an fp64 NumPy product with the library's
tolerance rule."""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("numpy", reason="numpy is not installed")
pytest.importorskip("numba", reason="numba is not installed: the Numba lab is not tested")

import numpy as np  # noqa: E402

import tilegemm  # noqa: E402
from tilegemm import numba_lab  # noqa: E402

KERNELS = ["numba_naive", "numba_tiled_t8", "numba_tiled_t16", "numba_tiled_t32",
           "numba_tiled_rect_32x16x16"]


def _run_lab(tmp_path, simulator):
    env = dict(os.environ)
    env["NUMBA_ENABLE_CUDASIM"] = "1" if simulator else "0"
    out = tmp_path / "lab.json"
    proc = subprocess.run([sys.executable, "-m", "tilegemm.numba_lab", "--no-bench", "--json",
                           str(out)], env=env, capture_output=True, text=True, timeout=900)
    return proc, (json.loads(out.read_text()) if out.exists() else None)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    proc, report = _run_lab(tmp_path_factory.mktemp("sim"), simulator=True)
    assert report is not None, f"the lab wrote no report:\n{proc.stdout}\n{proc.stderr}"
    return proc, report


def test_lab_runs_on_the_simulator(simulated):
    proc, report = simulated
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert report["simulator"] is True
    # The seed's analysis, answered by the library, comes first.
    assert "Naive:    8.59 GB" in proc.stdout
    assert "Tiled:    0.268 GB" in proc.stdout
    assert "Tile 32×16×16 (smem_tiled_rect_32x16x16)" in proc.stdout


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("shape", numba_lab.HOST_SIZES, ids=lambda s: "x".join(map(str, s)))
def test_kernel_verifies_on_the_simulator(simulated, kernel, shape):
    _, report = simulated
    m, n, k = shape
    [check] = [c for c in report["checks"]
               if c["kernel"] == kernel and (c["m"], c["n"], c["k"]) == (m, n, k)]
    assert check["passed"], check["detail"]
    assert check["tolerance"] == pytest.approx(tilegemm.tolerance(k))
    assert check["reference"] == "fp64 numpy"


def test_non_tile_multiples_are_covered():
    tiles = (8, 16, 32)
    assert any(all(d % t for d in s for t in tiles) for s in numba_lab.HOST_SIZES)


def test_lab_without_gpu_or_simulator_says_so(tmp_path, no_gpu):
    proc, _ = _run_lab(tmp_path, simulator=False)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "no CUDA device found" in proc.stdout
    assert "8.59 GB" in proc.stdout  # the analysis needs no GPU


# The check itself must fail wrong results, or a passing kernel proves nothing.

def _product(m=40, n=35, k=45, seed=3):
    rng = np.random.default_rng(seed)
    a = numba_lab._uniform(rng, (m, k))
    b = numba_lab._uniform(rng, (k, n))
    return a, b, a.astype(np.float64) @ b.astype(np.float64)


def test_check_passes_an_fp32_product():
    a, b, ref = _product()
    assert numba_lab.check_result(a @ b, ref, a.shape[1])["passed"]


def test_check_fails_a_missing_k_tile():
    a, b, ref = _product()
    wrong = a[:, 8:] @ b[8:, :]  # the first 8-deep K step left out
    result = numba_lab.check_result(wrong, ref, a.shape[1])
    assert not result["passed"] and "rel_error" in result["detail"]


def test_check_fails_one_wrong_element():
    a, b, ref = _product(m=200, n=200, k=64)
    wrong = (a @ b).astype(np.float32)
    wrong[17, 3] += 0.5
    result = numba_lab.check_result(wrong, ref, a.shape[1])
    assert not result["passed"] and "element" in result["detail"]


def test_check_fails_an_unwritten_element():
    a, b, ref = _product()
    wrong = (a @ b).astype(np.float32)
    wrong[-1, -1] = np.nan
    result = numba_lab.check_result(wrong, ref, a.shape[1])
    assert not result["passed"] and result["nonfinite"] == 1
