// What the SIMT ladder's rungs 5..9 share beyond common.cuh: the layout dispatch that turns the
// two operand layouts into template parameters, the cp.async wrappers, the register-staged copy,
// the fragment reads and the edge-guarded stores. The host-side views and checks (alignment,
// 32-bit fits, the mirror) are problem_views.hpp's; launch-time support (SM count, shared-memory
// opt-in) is src/core/device_runtime.hpp's.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "async_copy.cuh"
#include "common.cuh"
#include "ladder_maps.hpp"

namespace tilegemm::kernels::ladder {

// ---- Host side ---------------------------------------------------------------------------------

using views::dispatch_layouts;

// ---- Device side -------------------------------------------------------------------------------

// cp.async (sm_80+): global -> shared without a register round trip. src_bytes < size copies
// src_bytes and zero-fills the rest; src_bytes == 0 reads nothing and writes zeros, which is how
// every out-of-bounds element of an edge tile becomes 0. Below sm_80 the same contract is kept
// with an ordinary load and store (the copy is then synchronous).
__device__ __forceinline__ void cp_async_16(float* smem, const float* gmem, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
               "r"(src_bytes)
               : "memory");
#else
  for (int j = 0; j < 4; ++j) smem[j] = 4 * j < src_bytes ? gmem[j] : 0.0f;
#endif
}

__device__ __forceinline__ void cp_async_4(float* smem, const float* gmem, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem),
               "r"(src_bytes)
               : "memory");
#else
  *smem = src_bytes > 0 ? *gmem : 0.0f;
#endif
}

// Group commit and wait: async_copy.cuh's.
using kernels::cp_async_commit;
using kernels::cp_async_wait;

// Register-staged copy of one operand tile (rungs 5-7): 16-byte global loads into registers,
// then stores into the k-major shared tile S[k][x] (row length SMEM_LD floats). A k-contiguous
// tile (K_CONTIG) is transposed on the way: each vector of 4 k is stored as 4 scalars; an
// x-contiguous tile is stored as it came, one 16-byte store per vector. A vector that crosses
// the matrix edge is read element by element, each element predicated, so any M, N, K works.
//
// The source: element (x, k) of the tile is at src[x * ld + k] (K_CONTIG) or src[k * ld + x].
// Needs views::aligned(operand, 16): then every vector starting at a multiple of 4 is aligned.
template <int BX, int BK, int THREADS, bool K_CONTIG, int SMEM_LD>
struct StagedCopy {
  using Plan = CopyPlan<BX, BK, THREADS, K_CONTIG ? CopyKind::kKVec4 : CopyKind::kXVec4>;
  static_assert(Plan::valid(), "the tile must split into whole 16-byte vectors, evenly per thread");
  static_assert(SMEM_LD % 4 == 0,
                "16-byte shared stores need rows that are a multiple of 16 bytes");

  float4 v[Plan::kPasses];  // (passes): the vectors this thread carries from global to shared

  // x_left, k_left: elements of the matrix from the tile's corner to its edge along x and k.
  __device__ __forceinline__ void load(const float* src, std::int64_t ld, int x_left, int k_left,
                                       int tid) {
#pragma unroll
    for (int p = 0; p < Plan::kPasses; ++p) {
      const int x = Plan::x0(tid) + Plan::dx(p);
      const int k = Plan::k0(tid) + Plan::dk(p);
      // The vector runs along the contiguous dimension c, in line `line` of the other one.
      const int line = K_CONTIG ? x : k;
      const int c = K_CONTIG ? k : x;
      const int line_left = K_CONTIG ? x_left : k_left;
      const int c_left = K_CONTIG ? k_left : x_left;
      const float* ptr = src + line * ld + c;
      if (line < line_left && c + 4 <= c_left) {
        v[p] = *reinterpret_cast<const float4*>(ptr);
      } else {
        const bool in = line < line_left;
        v[p].x = (in && c + 0 < c_left) ? ptr[0] : 0.0f;
        v[p].y = (in && c + 1 < c_left) ? ptr[1] : 0.0f;
        v[p].z = (in && c + 2 < c_left) ? ptr[2] : 0.0f;
        v[p].w = (in && c + 3 < c_left) ? ptr[3] : 0.0f;
      }
    }
  }

  __device__ __forceinline__ void store(float* smem, int tid) const {
#pragma unroll
    for (int p = 0; p < Plan::kPasses; ++p) {
      const int x = Plan::x0(tid) + Plan::dx(p);
      const int k = Plan::k0(tid) + Plan::dk(p);
      if constexpr (K_CONTIG) {
        smem[(k + 0) * SMEM_LD + x] = v[p].x;
        smem[(k + 1) * SMEM_LD + x] = v[p].y;
        smem[(k + 2) * SMEM_LD + x] = v[p].z;
        smem[(k + 3) * SMEM_LD + x] = v[p].w;
      } else {
        *reinterpret_cast<float4*>(smem + k * SMEM_LD + x) = v[p];
      }
    }
  }
};

// Reads COUNT 4-float strips, STEP floats apart, from one row of a k-major shared tile into a
// register fragment: COUNT 16-byte shared loads (LDS.128; `row` must be 16-byte aligned).
template <int COUNT, int STEP>
__device__ __forceinline__ void load_fragment(float (&frag)[4 * COUNT], const float* row) {
#pragma unroll
  for (int s = 0; s < COUNT; ++s) {
    const float4 v = *reinterpret_cast<const float4*>(row + s * STEP);
    frag[4 * s + 0] = v.x;
    frag[4 * s + 1] = v.y;
    frag[4 * s + 2] = v.z;
    frag[4 * s + 3] = v.w;
  }
}

// acc += a * b^T: the TM x TN outer product of one k, TM * TN FFMAs.
template <int TM, int TN>
__device__ __forceinline__ void outer_product(float (&acc)[TM][TN], const float (&a)[TM],
                                              const float (&b)[TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

// The C epilogue of W consecutive elements of one row of a thread tile: row `row`, columns
// col..col+W-1 (block-relative), guarded against the M/N edges. rows_left/cols_left: rows and
// columns of C from the block tile's corner to the matrix edge; c_tile: C at that corner.
template <int W>
__device__ __forceinline__ void store_row(const GemmArgs& g, float* c_tile, int row, int col,
                                          int rows_left, int cols_left, const float* vals) {
  if (row >= rows_left) return;
  float* c_row = c_tile + row * g.c_rs;
#pragma unroll
  for (int j = 0; j < W; ++j) {
    if (col + j < cols_left) epilogue_store(c_row + (col + j) * g.c_cs, vals[j], g.alpha, g.beta);
  }
}

}  // namespace tilegemm::kernels::ladder
