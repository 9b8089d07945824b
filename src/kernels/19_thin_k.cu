// Rung 19: thin K (K up to a few dozen against large M x N), in every element type, on the CUDA
// cores.
//
// With K this small a GEMM is a write of C: each element of C costs 2K FLOP and one store, so
// below K of about 32 (fp32 C) the store stream, not the math, bounds it. The tile kernels lose
// here (docs/perf-notes.md, "Shapes nobody picked" and "Rung 19"), since their prologue, a
// pipeline built for a long K loop and a large-tile epilogue are all overhead.
// Idea: a block writes a 64 x 128 tile of C, each warp 8 whole rows of 128 consecutive elements,
// with A's 64 x K and B's K x 128 slices staged in shared memory as fp32, and nothing else. Where
// such tiles would be fewer than two per SM, 32 x 128 tiles (4 rows a warp) put twice the blocks,
// and the stores behind them, on the SMs.
//  - C is made row-major first (a column-major C is computed as its mirror, C^T = B^T A^T).
//  - Any A and B layout and alignment: the slices are read element by element through the
//    operands' strides, consecutive threads along the contiguous dimension.
//  - C in 16-byte (fp32) or 8-byte (16-bit) pieces where its base and ld allow, else element by
//    element with each store instruction still 32 consecutive elements of a row (warp shuffles);
//    beta = 0 never reads C. fp32 accumulation in every type; tf32 problems are computed in fp32
//    (more precise than asked).
// Floor and outcome: docs/perf-notes.md, "Rung 19".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "../core/device_runtime.hpp"
#include "common.cuh"
#include "families.hpp"
#include "tensor_common.cuh"

namespace tilegemm::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int BM = 64;  // C rows per block: 8 per warp (32, 4 per warp: few tiles)
constexpr int kRowsPerWarp = BM / kWarps;
constexpr int BN = 128;               // C columns per block: 4 per lane
constexpr int kColsPerLane = BN / 32;
constexpr int KC = 32;                // K per shared-memory round
constexpr int kMaxK = 256;            // the largest K the family takes (a design bound)

struct ThinArgs : StridedProblem {
  int vec4;  // C's base and ldc allow 4-element accesses at columns that are multiples of 4
};

// Four consecutive elements of C: alpha * v + beta * C, one vector access.
template <class CT>
__device__ __forceinline__ void store_c_four(CT* p, const float (&v)[4], float alpha, float beta) {
  float o[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = alpha * v[i];
  if (beta != 0.0f) {
    const float2 lo = OutC<CT>::load2(p);
    const float2 hi = OutC<CT>::load2(p + 2);
    o[0] = fmaf(beta, lo.x, o[0]);
    o[1] = fmaf(beta, lo.y, o[1]);
    o[2] = fmaf(beta, hi.x, o[2]);
    o[3] = fmaf(beta, hi.y, o[3]);
  }
  if constexpr (sizeof(CT) == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(o[0], o[1], o[2], o[3]);
  } else {
    CT packed[4];
    OutC<CT>::store2(packed, o[0], o[1]);
    OutC<CT>::store2(packed + 2, o[2], o[3]);
    *reinterpret_cast<uint2*>(p) = *reinterpret_cast<const uint2*>(packed);
  }
}

// Block (blockIdx.y, blockIdx.x) writes C rows RPW kWarps blockIdx.y .. (RPW rows a warp: 8, or 4
// where 64-row tiles would leave SMs idle), columns 128 blockIdx.x .. + 127; warp w its rows
// RPW w .. RPW w + RPW - 1, lane l columns 4 l .. 4 l + 3 of each.
// At most 64 registers, 4 blocks per SM: the stores of one block drain while others load.
template <class E, class CT, int RPW>
__global__ void __launch_bounds__(kThreads, 4) thin_k_kernel(const ThinArgs g) {
  static_assert(RPW == 8 || RPW == 4, "8 or 4 rows a warp");
  constexpr int TM = RPW * kWarps;  // C rows per block
  // The slices, a row of M (N) per k, 4 floats of padding: the stores of a K-contiguous operand
  // (consecutive threads along k) spread over 8 banks instead of one.
  __shared__ __align__(16) float a_s[KC][TM + 4];
  __shared__ __align__(16) float b_s[KC][BN + 4];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int m0 = static_cast<int>(blockIdx.y) * TM;
  const int n0 = static_cast<int>(blockIdx.x) * BN;
  const E* const a = static_cast<const E*>(g.a);
  const E* const b = static_cast<const E*>(g.b);
  // Consecutive threads along the operand's contiguous dimension, so each slice read coalesces.
  const bool a_k_fast = g.a_k == 1;
  const bool b_k_fast = g.b_k == 1;

  float acc[RPW][kColsPerLane] = {};
  for (int k0 = 0; k0 < g.k; k0 += KC) {
    const int kc = min(KC, g.k - k0);
    __syncthreads();  // the previous round's slices are read
    // Only the kc x 64 (kc x 128) elements this round uses, four loads issued before their
    // stores: a thread waits about once per four elements, not once per element.
#pragma unroll 4
    for (int e = tid; e < kc * TM; e += kThreads) {
      const int kk = a_k_fast ? e % kc : e / TM;
      const int i = a_k_fast ? e / kc : e % TM;
      a_s[kk][i] = m0 + i < g.m ? OutC<E>::load1(a + (m0 + i) * g.a_m +
                                                 static_cast<std::int64_t>(k0 + kk) * g.a_k)
                                : 0.0f;
    }
#pragma unroll 4
    for (int e = tid; e < kc * BN; e += kThreads) {
      const int kk = b_k_fast ? e % kc : e / BN;
      const int j = b_k_fast ? e / kc : e % BN;
      b_s[kk][j] = n0 + j < g.n ? OutC<E>::load1(b + static_cast<std::int64_t>(k0 + kk) * g.b_k +
                                                 (n0 + j) * g.b_n)
                                : 0.0f;
    }
    __syncthreads();
#pragma unroll 4
    for (int kk = 0; kk < kc; ++kk) {
      float av[RPW];
#pragma unroll
      for (int h = 0; h < RPW / 4; ++h) {
        const float4 a4 = *reinterpret_cast<const float4*>(&a_s[kk][RPW * warp + 4 * h]);
        av[4 * h] = a4.x;
        av[4 * h + 1] = a4.y;
        av[4 * h + 2] = a4.z;
        av[4 * h + 3] = a4.w;
      }
      const float4 bv = *reinterpret_cast<const float4*>(&b_s[kk][kColsPerLane * lane]);
      const float bw[kColsPerLane] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
      for (int i = 0; i < RPW; ++i) {
#pragma unroll
        for (int j = 0; j < kColsPerLane; ++j) acc[i][j] = fmaf(av[i], bw[j], acc[i][j]);
      }
    }
  }

  // Lane l holds columns 4 l .. 4 l + 3 of each row: one 4-element store where C's base and ld
  // allow it (with 4 rows a warp also in a tile cut by N: each lane whose four columns are
  // inside, the one cut group element by element; the 8-row kernel keeps its epilogue, which ran
  // faster on the large C it writes than with that branch added: perf-notes.md, "Rung 19's
  // 32-row tiles"); otherwise four shuffles per store hand lane l column 32 j + l instead, so
  // that each store instruction still writes 32 consecutive elements of the row.
  CT* const c = static_cast<CT*>(g.c);
#pragma unroll
  for (int i = 0; i < RPW; ++i) {
    const int row = m0 + RPW * warp + i;  // the same for the whole warp
    if (row >= g.m) continue;
    CT* const c_row = c + static_cast<std::int64_t>(row) * g.ldc;
    const int col4 = n0 + kColsPerLane * lane;
    if (g.vec4 != 0 && n0 + BN <= g.n) {
      store_c_four(c_row + col4, acc[i], g.alpha, g.beta);
      continue;
    }
    if (RPW == 4 && g.vec4 != 0) {
      if (col4 + kColsPerLane <= g.n) {
        store_c_four(c_row + col4, acc[i], g.alpha, g.beta);
      } else {
#pragma unroll
        for (int j = 0; j < kColsPerLane; ++j) {
          if (col4 + j < g.n) store_c_one(c_row + col4 + j, acc[i][j], g.alpha, g.beta);
        }
      }
      continue;
    }
#pragma unroll
    for (int j = 0; j < kColsPerLane; ++j) {
      const int src = 8 * j + lane / 4;  // the lane holding column 32 j + lane
      float v = 0.0f;
#pragma unroll
      for (int q = 0; q < kColsPerLane; ++q) {
        const float t = __shfl_sync(0xffffffffu, acc[i][q], src);
        if (lane % 4 == q) v = t;
      }
      const int col = n0 + 32 * j + lane;
      if (col < g.n) store_c_one(c_row + col, v, g.alpha, g.beta);
    }
  }
}

bool can_implement_thin_k(const Problem& p) {
  const Problem q = views::row_major_c(p);
  return q.k <= kMaxK && views::tile_grid_fits(q, BM / 2, BN);
}

// Rows a warp writes for a row-major-C problem: 8, or 4 where 64 x 128 tiles would be fewer than
// two per SM (half-height tiles put twice the blocks, and the stores behind them, on the SMs).
int rows_per_warp(const Problem& q) {
  const views::TileCounts t = views::tile_counts(q, BM, BN);
  return t.m * t.n < 2LL * runtime::sm_count() ? 4 : 8;
}

template <class E, class CT>
cudaError_t launch_typed(const Problem& p, cudaStream_t stream) {
  const Problem q = views::row_major_c(p);
  ThinArgs g{};
  static_cast<StridedProblem&>(g) = strided_problem(q);
  g.vec4 = views::aligned(q.c, 4 * sizeof(CT));
  if (rows_per_warp(q) == 4) {
    thin_k_kernel<E, CT, 4><<<tile_grid(q, BM / 2, BN), kThreads, 0, stream>>>(g);
  } else {
    thin_k_kernel<E, CT, 8><<<tile_grid(q, BM, BN), kThreads, 0, stream>>>(g);
  }
  return cudaGetLastError();
}

cudaError_t launch_thin_k(const Problem& p, cudaStream_t stream) {
  return with_types(p.types(), [&](auto e, auto ct) {
    return launch_typed<typename decltype(e)::type, typename decltype(ct)::type>(p, stream);
  });
}

const void* device_function_thin_k(const Problem& p) {
  const int rpw = rows_per_warp(views::row_major_c(p));
  return with_types(p.types(), [&](auto e, auto ct) {
    using E = typename decltype(e)::type;
    using CT = typename decltype(ct)::type;
    return rpw == 4 ? kernel_address(&thin_k_kernel<E, CT, 4>)
                    : kernel_address(&thin_k_kernel<E, CT, 8>);
  });
}

}  // namespace

void register_thin_k(Registry& r) {
  KernelInfo k;
  k.name = "thin_k";
  k.family = "thin_k";
  k.rung = 19;
  k.tile = TileConfig{};
  k.tile.bm = BM;
  k.tile.bn = BN;
  k.tile.bk = KC;
  k.tile.wm = kRowsPerWarp;
  k.tile.wn = BN;
  k.tile.tm = kRowsPerWarp;
  k.tile.tn = kColsPerLane;
  k.tile.threads = kThreads;
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // element reads and stores: any alignment
  k.desc.types = every_type_combination();
  k.summary =
      "K up to 256: C written as 64 x 128 tiles (32 x 128 where those would be fewer than two per "
      "SM) of whole 128-element row pieces, A's and B's thin slices staged in shared memory as "
      "fp32; any layout and alignment, every type, fp32 accumulation";
  k.can_implement = can_implement_thin_k;
  k.launch = launch_thin_k;
  k.device_function = device_function_for(k.can_implement, device_function_thin_k);
  r.push_back(std::move(k));
}

}  // namespace tilegemm::kernels
