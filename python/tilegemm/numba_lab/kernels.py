"""Seed 004's Numba kernels: naive, square tiles (TILE_SIZE 16, and the tile-size exercise's 8 and
32), and the rectangular exercise's 32 x 16 output tile with its own TILE_K of 16.

They are the seed's kernels as written there, with two changes, each for a stated reason:
  - the accumulator is float32 (`np.float32(0.0)`): Numba types a bare `0.0` as float64, which
    would make these kernels accumulate in fp64, a different (and on most GPUs slower) arithmetic
    than their C++ twins' fp32 FFMA, and the comparison beside them would say nothing;
  - the tile kernels are made by a factory per tile size: Numba needs the shared-array shape as a
    compile-time constant, and the seed's exercise asks for one kernel per size.
Edges are zero-padded as in the seed, so any M, N, K works.

Each kernel's C++ twin in the library (`tilegemm list`) is named in KERNELS.
"""

import math

import numpy as np

# numba-cuda 0.30.4 registers an overload for np.row_stack when its CUDA target first compiles,
# and numpy 2.5 removed that alias of np.vstack: give it back before numba-cuda looks for it.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda, float32  # noqa: E402

TILE_SIZE = 16  # the seed's Numba tile: must match the block size


def _make_tiled(tile):
    """The seed's `matmul_tiled` with TILE_SIZE = tile."""

    @cuda.jit
    def matmul_tiled(A, B, C, M, N, K):
        As = cuda.shared.array((tile, tile), dtype=float32)
        Bs = cuda.shared.array((tile, tile), dtype=float32)

        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * tile + ty
        col = cuda.blockIdx.x * tile + tx

        total = np.float32(0.0)
        num_tiles = (K + tile - 1) // tile
        for t in range(num_tiles):
            a_col = t * tile + tx
            if row < M and a_col < K:
                As[ty, tx] = A[row, a_col]
            else:
                As[ty, tx] = 0.0
            b_row = t * tile + ty
            if b_row < K and col < N:
                Bs[ty, tx] = B[b_row, col]
            else:
                Bs[ty, tx] = 0.0
            cuda.syncthreads()  # the tiles are complete
            for k in range(tile):
                total += As[ty, k] * Bs[k, tx]
            cuda.syncthreads()  # nobody still reads the tiles the next step overwrites
        if row < M and col < N:
            C[row, col] = total

    return matmul_tiled


def _make_tiled_rect(tile_m, tile_n, tile_k):
    """The seed's rectangular exercise: a TILE_M x TILE_N output tile, K staged TILE_K deep, one C
    element a thread, a block of TILE_N x TILE_M threads (tx along N, ty along M)."""

    @cuda.jit
    def matmul_tiled_rect(A, B, C, M, N, K):
        As = cuda.shared.array((tile_m, tile_k), dtype=float32)
        Bs = cuda.shared.array((tile_k, tile_n), dtype=float32)

        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * tile_m + ty
        col = cuda.blockIdx.x * tile_n + tx

        total = np.float32(0.0)
        num_tiles = (K + tile_k - 1) // tile_k
        for t in range(num_tiles):
            # TILE_K may exceed the block's width or height: load in strides of it.
            for i in range(tx, tile_k, cuda.blockDim.x):
                a_col = t * tile_k + i
                if row < M and a_col < K:
                    As[ty, i] = A[row, a_col]
                else:
                    As[ty, i] = 0.0
            for i in range(ty, tile_k, cuda.blockDim.y):
                b_row = t * tile_k + i
                if b_row < K and col < N:
                    Bs[i, tx] = B[b_row, col]
                else:
                    Bs[i, tx] = 0.0
            cuda.syncthreads()
            for k in range(tile_k):
                total += As[ty, k] * Bs[k, tx]
            cuda.syncthreads()
        if row < M and col < N:
            C[row, col] = total

    return matmul_tiled_rect


@cuda.jit
def matmul_naive(A, B, C, M, N, K):
    """The seed's naive kernel: one thread per element of C, operands from global memory."""
    row = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if row < M and col < N:
        total = np.float32(0.0)
        for k in range(K):
            total += A[row, k] * B[k, col]
        C[row, col] = total


matmul_tiled = _make_tiled(TILE_SIZE)
matmul_tiled_8 = _make_tiled(8)
matmul_tiled_16 = matmul_tiled
matmul_tiled_32 = _make_tiled(32)
matmul_tiled_rect = _make_tiled_rect(32, 16, 16)


class NumbaKernel:
    """One of the seed's kernels with its launch shape and the name of its C++ twin."""

    def __init__(self, name, function, block, tile_mn, twin, summary):
        self.name = name
        self.function = function
        self.block = block  # (x, y) threads: x along N, y along M
        self.tile_mn = tile_mn  # (rows, cols) of C per block
        self.twin = twin
        self.summary = summary

    def grid(self, m, n):
        rows, cols = self.tile_mn
        return (math.ceil(n / cols), math.ceil(m / rows))

    def launch(self, A, B, C, m, n, k, stream=0):
        """C = A @ B, enqueued on `stream` (0: the legacy default stream)."""
        self.function[self.grid(m, n), self.block, stream](A, B, C, m, n, k)

    def __repr__(self):
        return f"NumbaKernel({self.name!r}, twin={self.twin!r})"


KERNELS = [
    NumbaKernel("numba_naive", matmul_naive, (16, 16), (16, 16), "naive",
                "one thread per C element, 16x16 blocks (the seed's benchmark launch)"),
    NumbaKernel("numba_tiled_t8", matmul_tiled_8, (8, 8), (8, 8), "smem_tiled_t8",
                "square 8x8 shared-memory tiles (exercise 1)"),
    NumbaKernel("numba_tiled_t16", matmul_tiled_16, (16, 16), (16, 16), "smem_tiled_t16",
                "square 16x16 shared-memory tiles (the seed's TILE_SIZE)"),
    NumbaKernel("numba_tiled_t32", matmul_tiled_32, (32, 32), (32, 32), "smem_tiled_t32",
                "square 32x32 shared-memory tiles (exercise 1)"),
    NumbaKernel("numba_tiled_rect_32x16x16", matmul_tiled_rect, (16, 32), (32, 16),
                "smem_tiled_rect_32x16x16",
                "rectangular 32x16 output tile, TILE_K 16 (exercise 2)"),
]


def find(name):
    for k in KERNELS:
        if k.name == name:
            return k
    raise KeyError(f"no Numba kernel {name!r}; there are {[k.name for k in KERNELS]}")
