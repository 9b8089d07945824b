"""Fixtures that decide what runs where. GPU tests ask for `gpu` (or a framework fixture built on
it) and report SKIPPED with the reason on a machine without a CUDA device; CPU tests run
everywhere."""
import pytest

import tilegemm


@pytest.fixture(scope="session")
def gpu():
    if not tilegemm.cuda_available():
        pytest.skip("no CUDA device: GPU test skipped")


@pytest.fixture(scope="session")
def no_gpu():
    if tilegemm.cuda_available():
        pytest.skip("a CUDA device is present: this checks the behaviour without one")


@pytest.fixture(scope="session")
def torch(gpu):
    torch = pytest.importorskip("torch", reason="torch is not installed: torch GPU test skipped")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device (a CPU-only torch build?)")
    return torch


@pytest.fixture(scope="session")
def cupy(gpu):
    return pytest.importorskip("cupy", reason="cupy is not installed: CuPy GPU test skipped")


@pytest.fixture(scope="session")
def numba_cuda(gpu):
    pytest.importorskip("numba", reason="numba is not installed")
    try:
        from tilegemm.numba_lab import kernels  # noqa: F401  (applies the numpy guard first)
        from numba import cuda
    except Exception as e:  # a broken numba-cuda install is a skip with its reason, not a pass
        pytest.skip(f"numba-cuda does not import here: {type(e).__name__}: {e}")
    if not cuda.is_available():
        pytest.skip("numba-cuda sees no CUDA device (driver or NVVM not found)")
    return cuda
