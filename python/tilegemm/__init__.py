"""tilegemm: the tiled GEMM library's kernels from Python.

    tilegemm.gemm(a, b, c=None, *, alpha=1.0, beta=0.0, kernel="auto", out_dtype=None,
                  stream=None, tf32=False)
        C = alpha * A @ B + beta * C on torch tensors or CuPy arrays on a CUDA device, through
        DLPack, by the C++ library (validated first; transposed views read in place).
    tilegemm.set_fp32_math("3xtf32" | "simt"), tilegemm.fp32_math()
        how kernel="auto" computes fp32 products (three tf32 products where they pay, the
        default, or the CUDA cores only).
    tilegemm.kernels(), tilegemm.verify(...), tilegemm.bench(...), tilegemm.analyze(...)
        the lab: the registry, verification against the fp64 reference, timing beside cuBLAS,
        and the traffic/occupancy model, as records.
    tilegemm.torch        a torch.library custom op (torch.compile, opcheck); imported on demand.
    tilegemm.numba_lab    the seed's Numba kernels beside their C++ twins (python -m
                          tilegemm.numba_lab).
"""

from . import _api
from ._api import (
    Testbed,
    analyze,
    bench,
    cuda_available,
    devices,
    element_tolerance,
    fp32_math,
    gemm,
    kernels,
    set_fp32_math,
    tolerance,
    verify,
)
from ._tilegemm import version as __version__

# The public names are _api's (one list), plus the version.
__all__ = [*_api.__all__, "__version__"]
