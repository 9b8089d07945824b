// Rung 28: tiny products of 16-bit operands on mma.sync (and of fp32 as three tf32 products), K
// split over the warps of one block, and past K = 512 over the blocks of a cluster
// (`tiny_mma_32x32`).
//
// Rungs 24 and 27 split a small product's K over blocks: each split leaves its partial sums in
// the stream workspace (or, on rung 24, in a cluster's shared memory) and the last block of a
// tile adds them. On products of a few million multiply-adds the GPU's time past the launch is
// that chain: a stage's loads, a barrier per stage, the partial sums' writes, the arrival (or the
// cluster barrier) and the sum. cuBLAS runs one block per tile over the whole K there and took
// less time (docs/perf-notes.md, "Launch-bound rows under Nsight Compute" and "Rung 28").
// Idea: one block per 32 x 32 tile of C (16 x 32 where C has at most 16 rows, 32 x 16 where it
// has more and at most 16 columns: a 32 x 32 tile loaded a quarter of its fragments for rows or
// columns that do not exist) and no split over blocks; the block's eight warps take consecutive
// slices of K (multiples of 16), each computing the whole tile over its slice:
//  - C is made row-major (a column-major C is computed as its mirror, C^T = B^T A^T).
//  - Each lane loads its own mma.sync m16n8k16 fragments straight from global memory into
//    registers through the operands' strides (any layout, pitch and base): a K-contiguous operand
//    whose base and pitch are 4-byte aligned as one 32-bit word per element pair, else element by
//    element; zero past M, N and K. No shared-memory stage, no barrier in the K loop: a chunk of
//    32 k is one round of loads, all in flight together, then its products.
//  - The warps' partial tiles meet once in shared memory; each thread adds four outputs over the
//    warps in warp order (deterministic) and writes C with alpha and beta.
//  - fp32 (three tf32 products, m16n8k8): the same pairs of k, an element a word each (an
//    8-byte-aligned K-contiguous pair as one 64-bit load); a k16 step is two m16n8k8 steps, the
//    pairs at 2 tq in the places of k and k + 4 of the first, those at 2 tq + 8 of the second, each
//    value split into tf32 parts (mma_sync::mma_3xtf32_step), the step's sum added into rounding
//    fp32 accumulators (the tensor cores' own sums truncate).
// The chain past the launch is the slice's loads (one round trip for K up to 256), the mma.sync
// steps, one barrier and C's store. Up to K = 32 (one chunk) a block is one warp (the Solo kernel:
// no barrier, the launch's least setup); on a 32-column tile it stores C through a tile of its own
// in shared memory, a row of the tile an instruction (straight from the fragments an instruction
// wrote 8 rows), on narrower ones from the fragments. Past
// K = 512 a block's warps would take several rounds of loads each (and lost to rung 24's split over
// blocks): there K is split over the blocks of one thread-block cluster per tile (sm_90), a round
// of loads a warp (256 k a block) where that many blocks are resident, each block adds its warps'
// tiles, and the blocks' tiles are added in split order through distributed shared memory
// (cluster_split.cuh); still one launch, no workspace.
// `tiny_mma_16x8` is the one-warp kernel on a 16 x 8 tile over K up to 128: a warp's loads for
// K = 80 there are about as many as the 32 x 32 one-warp kernel's for K = 32, and the eight-warp
// block's partial tiles, barrier and sum drop out of K of 33..80 (past that its loads cost more
// than they save; docs/perf-notes.md, "Rung 28's 16 x 8 tile").
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "../cluster_split.cuh"
#include "../common.cuh"
#include "../families.hpp"
#include "../predicated_loads.cuh"
#include "../tensor_common.cuh"
#include "mma_sync.cuh"

namespace tilegemm::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int BM = 32;            // C rows per block
constexpr int BN = 32;            // C columns per block
constexpr int kSteps = 2;         // k16 steps whose fragments load together (32 k)
constexpr int kFragSteps = 8;     // tiny_mma_16x8: k16 steps of its one round (K up to 128)
constexpr int kFragM = 16;        // tiny_mma_16x8: C rows and columns a block (one warp)
constexpr int kFragN = 8;
constexpr int kRedLine = BN + 8;  // floats per row of a warp's partial tile (float2 stores spread)

struct TinyMmaArgs : StridedProblem {
  int tiles_n;
  int k_block;           // K per block (grid y: the K splits, one cluster): kWarps k_warp
  int k_warp;            // K per warp: a multiple of 16
  int a_pairs, b_pairs;  // A (B) is K-contiguous at a 4-byte-aligned base and pitch
  int c_pairs;           // C's base and ldc allow 2-element accesses at even columns
};

// One k16 step's fragments of a warp, as loaded: each register's element pair as two 16-bit
// values (lo, hi), or as one 32-bit word in lo (hi zero); fp32 elements a word each (lo, hi). They
// are combined only once every load of the chunk is issued: combining each pair as it arrives made
// the warp wait for every load in turn (the combination sat in the load's branch, before the next
// load).
template <int MF, int NF>
struct RawStep {
  std::uint32_t a_lo[MF][4], a_hi[MF][4];
  std::uint32_t b_lo[NF][2], b_hi[NF][2];
};

// The element pair (k, k + 1) of a line (a row of A or a column of B) at p (element k); zero past
// k_end. K_CONTIG with `pairs`: one 32-bit load (one 16-bit load where k + 1 is past the end).
template <bool K_CONTIG>
__device__ __forceinline__ void load_pair(const std::uint16_t* p, std::int64_t k_stride, int k,
                                          int k_end, bool pairs, std::uint32_t& lo,
                                          std::uint32_t& hi) {
  if (K_CONTIG && pairs) {
    lo = ld_b32_if(p, k + 1 < k_end, ld_u16_if(p, k + 1 == k_end));
    hi = 0u;
  } else {
    lo = ld_u16_if(p, k < k_end);
    hi = ld_u16_if(p + k_stride, k + 1 < k_end);
  }
}
// fp32 elements: lo is element k, hi element k + 1, each a whole word. K_CONTIG with `pairs`
// (8-byte aligned base and pitch): one 64-bit load (one 32-bit load where k + 1 is past the end).
template <bool K_CONTIG>
__device__ __forceinline__ void load_pair(const std::uint32_t* p, std::int64_t k_stride, int k,
                                          int k_end, bool pairs, std::uint32_t& lo,
                                          std::uint32_t& hi) {
  if (K_CONTIG && pairs) {
    const uint2 v = ld_b64_if(p, k + 1 < k_end);
    lo = ld_b32_if(p, k + 1 == k_end, v.x);
    hi = v.y;
  } else {
    lo = ld_b32_if(p, k < k_end);
    hi = ld_b32_if(p + k_stride, k + 1 < k_end);
  }
}

/// C = alpha * A B + beta * C for block tile blockIdx.x, K over the block's warps (and, with
/// gridDim.y > 1, over the blocks of a cluster: split blockIdx.y).
/// @tparam Op   Bf16Op or F16Op (m16n8k16), or Tf32Op: fp32 as three tf32 products (m16n8k8)
/// @tparam CT   C's storage type
/// @tparam A_K  A is K-contiguous (row-major); else M-contiguous
/// @tparam B_K  B is K-contiguous (column-major); else N-contiguous
/// @tparam Solo one warp a block, K within one chunk (kSolo): C through the warp's own tile
///              (32 columns) or from the fragments
/// @tparam TM   C rows a block: BM, or 16 where M is at most 16 (half the A fragments to load)
/// @tparam TN   C columns a block: BN, or 16 where N is at most 16 and M is not (8: the
///              one-warp 16 x 8 tile of `tiny_mma_16x8`)
/// @tparam SoloSteps the one-warp kernel's k16 steps: the whole K in one round of loads (kSteps
///              up to K = 32; kFragSteps for the 16 x 8 tile, steps past K skipped)
template <class Op, class CT, bool A_K, bool B_K, bool Solo, int TM, int TN, int SoloSteps = kSteps>
__global__ void __launch_bounds__(kThreads, 1) tiny_mma_kernel(const TinyMmaArgs g) {
  constexpr int kTileMf = TM / 16;  // m16 fragments per warp
  constexpr int kTileNf = TN / 8;   // n8 fragments per warp
  using Raw = RawStep<kTileMf, kTileNf>;
  constexpr bool kF32 = Op::kTf32;  // fp32 storage: an element a word, three tf32 products
  using Bits = std::conditional_t<kF32, std::uint32_t, std::uint16_t>;
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int gq = lane / 4;  // the fragment's row (A, C) or column (B) within 8
  const int tq = lane % 4;  // the fragment's k pair (A, B) or column pair (C)
  const int tile = static_cast<int>(blockIdx.x);
  const int m0 = (tile / g.tiles_n) * TM;
  const int n0 = (tile % g.tiles_n) * TN;
  const int k_base = static_cast<int>(blockIdx.y) * g.k_block;  // the block's split of K
  const int k_begin = k_base + warp * g.k_warp;
  const int k_end = min(g.k, k_begin + g.k_warp);
  const bool a_pairs = g.a_pairs != 0;
  const bool b_pairs = g.b_pairs != 0;
  const std::int64_t a_k = A_K ? 1 : g.a_k;
  const std::int64_t b_k = B_K ? 1 : g.b_k;

  // The lane's lines: A rows m0 + 16 i + 8 h + gq, B columns n0 + 8 j + gq (element k = 0); a
  // line past M (N) reads nothing.
  const Bits* const a = static_cast<const Bits*>(g.a);
  const Bits* const b = static_cast<const Bits*>(g.b);
  const Bits* pa[kTileMf][2];
  const Bits* pb[kTileNf];
  bool a_in[kTileMf][2];
  bool b_in[kTileNf];
#pragma unroll
  for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = m0 + 16 * i + 8 * h + gq;
      a_in[i][h] = r < g.m;
      pa[i][h] = a + static_cast<std::int64_t>(a_in[i][h] ? r : 0) * g.a_m;
    }
  }
#pragma unroll
  for (int j = 0; j < kTileNf; ++j) {
    const int col = n0 + 8 * j + gq;
    b_in[j] = col < g.n;
    pb[j] = b + static_cast<std::int64_t>(b_in[j] ? col : 0) * g.b_n;
  }

  // The loads of the k16 step at k0: A's registers (rows +0, +8) x (k +0, +8), B's (k +0, +8),
  // each an element pair at k0 + 2 tq + {0, 8}; a line past M (N) has no K (k_end 0).
  const auto load_step = [&](Raw& r, int k0) {
    const int k = k0 + 2 * tq;
#pragma unroll
    for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int h = q % 2;
        const int kk = k + 8 * (q / 2);
        load_pair<A_K>(pa[i][h] + kk * a_k, a_k, kk, a_in[i][h] ? k_end : 0, a_pairs, r.a_lo[i][q],
                       r.a_hi[i][q]);
      }
    }
#pragma unroll
    for (int j = 0; j < kTileNf; ++j) {
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const int kk = k + 8 * q;
        load_pair<B_K>(pb[j] + kk * b_k, b_k, kk, b_in[j] ? k_end : 0, b_pairs, r.b_lo[j][q],
                       r.b_hi[j][q]);
      }
    }
  };
  const auto mma_step = [&](float(&acc)[kTileMf][kTileNf][4], const Raw& r) {
    if constexpr (kF32) {
      // The step's two m16n8k8 products. Each takes k (lo) and k + 1 (hi) of a pair in the
      // places of k and k + 4 of the instruction's fragment, A's and B's alike (a sum over k in
      // any order): the first the pairs at 2 tq, the second those at 2 tq + 8. Their three tf32
      // products truncate as they add, so the step's sum goes into the rounding accumulators.
      float part[kTileMf][kTileNf][4] = {};
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        std::uint32_t a[kTileMf][4];
        std::uint32_t b[kTileNf][2];
#pragma unroll
        for (int i = 0; i < kTileMf; ++i) {
          a[i][0] = r.a_lo[i][2 * s];
          a[i][1] = r.a_lo[i][2 * s + 1];
          a[i][2] = r.a_hi[i][2 * s];
          a[i][3] = r.a_hi[i][2 * s + 1];
        }
#pragma unroll
        for (int j = 0; j < kTileNf; ++j) {
          b[j][0] = r.b_lo[j][s];
          b[j][1] = r.b_hi[j][s];
        }
        mma_sync::mma_3xtf32_step(part, a, b);
      }
#pragma unroll
      for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
        for (int j = 0; j < kTileNf; ++j) {
#pragma unroll
          for (int q = 0; q < 4; ++q) acc[i][j][q] += part[i][j][q];
        }
      }
    } else {
      std::uint32_t a[kTileMf][4];
      std::uint32_t b[kTileNf][2];
#pragma unroll
      for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
        for (int q = 0; q < 4; ++q) a[i][q] = r.a_lo[i][q] | (r.a_hi[i][q] << 16);
      }
#pragma unroll
      for (int j = 0; j < kTileNf; ++j) {
#pragma unroll
        for (int q = 0; q < 2; ++q) b[j][q] = r.b_lo[j][q] | (r.b_hi[j][q] << 16);
      }
#pragma unroll
      for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
        for (int j = 0; j < kTileNf; ++j) Op::mma(acc[i][j], a[i], b[j]);
      }
    }
  };

  float acc[kTileMf][kTileNf][4] = {};
  CT* const c = static_cast<CT*>(g.c);
  if constexpr (Solo) {
    // The whole K in one round of loads; no barrier (a block of one warp).
    // Steps wholly past K (the 16 x 8 tile's, SoloSteps > kSteps) issue nothing: a uniform branch.
    Raw raw[SoloSteps];
#pragma unroll
    for (int s = 0; s < SoloSteps; ++s) {
      if (SoloSteps == kSteps || 16 * s < k_end) load_step(raw[s], 16 * s);
    }
#pragma unroll
    for (int s = 0; s < SoloSteps; ++s) {
      if (SoloSteps == kSteps || 16 * s < k_end) mma_step(acc, raw[s]);
    }
    if constexpr (TN == BN) {
      // A 32-column tile: C through shared memory, the accumulators into a TM x TN tile, then row
      // after row of it, each lane a column, so that a store instruction writes a whole run of a
      // row; straight from the fragments each wrote 8 rows at 4 or 8 bytes each (element by
      // element at an odd pitch of C). On the 16 x 8 tile (16-byte runs) this measured slower;
      // the 16-column tile, not measured, keeps the fragments' stores too (docs/perf-notes.md,
      // "Rung 28's one-warp 32-column tile stores C through shared memory").
      constexpr int kLine = TN + 8;  // floats per row of the tile (float2 stores spread over banks)
      __shared__ __align__(16) float tile[TM * kLine];
#pragma unroll
      for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int j = 0; j < kTileNf; ++j) {
            *reinterpret_cast<float2*>(&tile[(16 * i + 8 * h + gq) * kLine + 8 * j + 2 * tq]) =
                make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
          }
        }
      }
      __syncwarp();
      const int rows = min(TM, g.m - m0);
      if (n0 + lane < g.n) {
        CT* const c_col = c + static_cast<std::int64_t>(m0) * g.ldc + n0 + lane;
#pragma unroll 4
        for (int r = 0; r < rows; ++r) {
          store_c_one(c_col + static_cast<std::int64_t>(r) * g.ldc, tile[r * kLine + lane], g.alpha,
                      g.beta);
        }
      }
    } else {
      const int cols_left = g.n - n0;
      const bool vec2 = g.c_pairs != 0;
#pragma unroll
      for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = m0 + 16 * i + 8 * h + gq;
          if (row >= g.m) continue;
          CT* const c_row = c + static_cast<std::int64_t>(row) * g.ldc + n0;
#pragma unroll
          for (int j = 0; j < kTileNf; ++j) {
            store_c_pair(c_row, 8 * j + 2 * tq, cols_left, acc[i][j][2 * h], acc[i][j][2 * h + 1],
                         g.alpha, g.beta, vec2);
          }
        }
      }
    }
  } else {
    __shared__ __align__(16) float red[kWarps][TM * kRedLine];
    if (k_begin < k_end) {
      // A chunk of kSteps k16 steps: every load issued, then the products (one round trip a chunk).
#pragma unroll 1
      for (int k0 = k_begin; k0 < k_end; k0 += 16 * kSteps) {
        Raw raw[kSteps];
#pragma unroll
        for (int s = 0; s < kSteps; ++s) load_step(raw[s], k0 + 16 * s);
#pragma unroll
        for (int s = 0; s < kSteps; ++s) mma_step(acc, raw[s]);
      }
      // The warp's partial tile: accumulator pair (row 16 i + 8 h + gq, columns 8 j + 2 tq, +1).
#pragma unroll
      for (int i = 0; i < kTileMf; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int j = 0; j < kTileNf; ++j) {
            *reinterpret_cast<float2*>(
                &red[warp][(16 * i + 8 * h + gq) * kRedLine + 8 * j + 2 * tq]) =
                make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
          }
        }
      }
    }
    __syncthreads();

    // Thread t adds outputs (row t / 8, columns 4 (t % 8) .. + 3) over the warps that had K, in
    // warp order, and writes them.
    const int busy = max(0, min(kWarps, (g.k - k_base + g.k_warp - 1) / g.k_warp));
    const int r = tid / (TN / 4);
    const int col = 4 * (tid % (TN / 4));
    // A 16-row or 16-column tile's outputs: the first 128 threads.
    const bool in_tile = (TM == BM && TN == BN) || r < TM;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int w = 0; in_tile && w < busy; ++w) {
      const float4 v = *reinterpret_cast<const float4*>(&red[w][r * kRedLine + col]);
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    if (gridDim.y > 1) {
      // K split over the cluster: the block's tile, then the blocks' tiles added in split order
      // through distributed shared memory (cluster_split.cuh), each output written once.
      __shared__ __align__(16) float mine[TM * TN];
      if (in_tile) *reinterpret_cast<float4*>(&mine[r * TN + col]) = sum;
      cluster::sum_over_cluster(mine, TM * TN, [&](int e, float s) {
        const int row = m0 + e / TN;
        const int cc = n0 + e % TN;
        if (row < g.m && cc < g.n) {
          store_c_one(c + static_cast<std::int64_t>(row) * g.ldc + cc, s, g.alpha, g.beta);
        }
      });
      return;
    }
    if (!in_tile || m0 + r >= g.m) return;
    CT* const c_row = c + static_cast<std::int64_t>(m0 + r) * g.ldc + n0;
    const int cols_left = g.n - n0;
    const bool vec2 = g.c_pairs != 0;
    store_c_pair(c_row, col, cols_left, sum.x, sum.y, g.alpha, g.beta, vec2);
    store_c_pair(c_row, col + 2, cols_left, sum.z, sum.w, g.alpha, g.beta, vec2);
  }
}

// m, n and k with a k-step to spare in int; the tiles fit a 1-D grid.
bool can_implement_tiny_mma(const Problem& p) {
  const Problem q = views::row_major_c(p);
  return views::dims_fit_int(q, 2 * 16 * kSteps) && views::linear_tile_grid_fits(q, BM, BN);
}

// An instantiation, whether it is the one-warp kernel, and the runtime's answers on its clusters
// (asked once per device and kept: cluster::ClusterFit), one per kernel.
struct Instance {
  void (*fn)(TinyMmaArgs);
  bool solo;
  int tm, tn;      // C rows and columns a block
  int solo_steps;  // the one-warp kernel's k16 steps: the K it takes in one round
  cluster::ClusterFit* fit;
};

template <class Op, class CT, bool A_K, bool B_K, bool Solo, int TM, int TN, int S = kSteps>
Instance instance() {
  static cluster::ClusterFit fit;
  return {&tiny_mma_kernel<Op, CT, A_K, B_K, Solo, TM, TN, S>, Solo, TM, TN, S, &fit};
}

// The instantiation of a tile (16 x 32, 32 x 16 or 32 x 32; 16 x 8 for tiny_mma_16x8) and
// whether it is the one-warp kernel.
template <class Op, class CT, bool A_K, bool B_K>
Instance instance_of(bool solo, int tm, int tn) {
  if (tn == kFragN) return instance<Op, CT, A_K, B_K, true, kFragM, kFragN, kFragSteps>();
  if (tm == 16) {
    return solo ? instance<Op, CT, A_K, B_K, true, 16, BN>()
                : instance<Op, CT, A_K, B_K, false, 16, BN>();
  }
  if (tn == 16) {
    return solo ? instance<Op, CT, A_K, B_K, true, BM, 16>()
                : instance<Op, CT, A_K, B_K, false, BM, 16>();
  }
  return solo ? instance<Op, CT, A_K, B_K, true, BM, BN>()
              : instance<Op, CT, A_K, B_K, false, BM, BN>();
}

// K a block takes whole, and K a cluster's block takes: a warp's slice of one chunk (kSteps k16
// steps, one round of loads). Up to kSolo, one chunk, a block is one warp (the Solo kernel).
constexpr std::int64_t kWholeK = 512;
constexpr std::int64_t kClusterSplitK = 16 * kSteps * kWarps;
constexpr std::int64_t kSolo = 16 * kSteps;

// Calls f(Type<Op>, Type<CT>) for a problem's types: mma_sync::with_16bit_op's, or Tf32Op and
// float for fp32 (three tf32 products).
template <class F>
decltype(auto) with_op(GemmTypes t, F&& f) {
  if (t.ab == DType::kF32) return f(Type<mma_sync::Tf32Op>{}, Type<float>{});
  return mma_sync::with_16bit_op(t, f);
}

// The instantiation for a row-major-C problem's types, layouts, K, M and N (16-row tiles where M
// is at most 16, else 16-column ones where N is); `frag`: tiny_mma_16x8's.
Instance kernel_for(const Problem& q, bool frag) {
  const bool solo = frag || q.k <= kSolo;
  const int tm = frag ? kFragM : q.m <= 16 ? 16 : BM;
  const int tn = frag ? kFragN : tm == BM && q.n <= 16 ? 16 : BN;
  return with_op(q.types(), [&](auto op, auto ct) {
    using Op = typename decltype(op)::type;
    using CT = typename decltype(ct)::type;
    return views::dispatch_layouts(q, [=](auto a_k, auto b_k) {
      return instance_of<Op, CT, decltype(a_k)::value, decltype(b_k)::value>(solo, tm, tn);
    });
  });
}

const void* device_function_tiny_mma(const Problem& p) {
  return kernel_address(kernel_for(views::row_major_c(p), false).fn);
}
const void* device_function_tiny_frag(const Problem& p) {
  return kernel_address(kernel_for(views::row_major_c(p), true).fn);
}

cudaError_t launch_with(const Problem& p, cudaStream_t stream, bool frag) {
  const Problem q = views::row_major_c(p);
  TinyMmaArgs g{};
  static_cast<StridedProblem&>(g) = strided_problem(q);
  const Instance kernel = kernel_for(q, frag);
  const std::int64_t tiles_n = ceil_div(q.n, std::int64_t{kernel.tn});
  const std::int64_t tiles = ceil_div(q.m, std::int64_t{kernel.tm}) * tiles_n;
  g.tiles_n = static_cast<int>(tiles_n);
  // K over the warps in slices of whole k16 steps (up to kSolo one warp takes it; the 16 x 8
  // tile's warp takes its whole K, at most kFragSteps steps); past kWholeK also over the blocks
  // of a cluster, a split per kClusterSplitK (or fewer, longer ones: the most whose clusters are
  // all resident at once); where no cluster fits, one block takes it whole.
  stream::Split sp = stream::split_k_in(1, q.k, 16 * kWarps, 16 * kWarps);
  if (!kernel.solo && q.k > kWholeK) {
    cluster::plan_resident(sp, tiles, q.k, 16 * kWarps, 16 * kWarps, ceil_div(q.k, kClusterSplitK),
                           kernel_address(kernel.fn), kThreads, *kernel.fit);
  }
  g.k_block = kernel.solo ? 16 * kernel.solo_steps : sp.k_chunk;
  g.k_warp = kernel.solo ? 16 * kernel.solo_steps : sp.k_chunk / kWarps;
  // A K-contiguous operand's pairs load as one access where its base and pitch are aligned to a
  // pair (4 bytes; 8 in fp32); an M- or N-contiguous operand's pairs are two element loads either
  // way.
  const bool a_k_contig = q.a.layout == Layout::kRowMajor;
  const bool b_k_contig = q.b.layout == Layout::kColMajor;
  const std::size_t pair_bytes = 2 * dtype_bytes(q.a.dtype);
  g.a_pairs = a_k_contig && views::aligned(q.a, pair_bytes);
  g.b_pairs = b_k_contig && views::aligned(q.b, pair_bytes);
  g.c_pairs = views::aligned(q.c, 2 * dtype_bytes(q.c.dtype));
  return cluster::launch(kernel.fn,
                         dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(sp.splits)),
                         kernel.solo ? 32 : kThreads, stream, sp.splits > 1, g);
}

cudaError_t launch_tiny_mma(const Problem& p, cudaStream_t stream) {
  return launch_with(p, stream, false);
}

// tiny_mma_16x8: K up to kFragSteps k16 steps, the 16 x 8 tiles' count within a 1-D grid.
bool can_implement_tiny_frag(const Problem& p) {
  const Problem q = views::row_major_c(p);
  return q.k <= 16 * kFragSteps && views::dims_fit_int(q, 2 * 16 * kSteps) &&
         views::linear_tile_grid_fits(q, kFragM, kFragN);
}

cudaError_t launch_tiny_frag(const Problem& p, cudaStream_t stream) {
  return launch_with(p, stream, true);
}

}  // namespace

namespace {

// An instance's name and tile as the registry records them: a bm x bn tile of C, every warp on
// all of it, `steps` k16 steps a round of loads, blocks of `threads`.
void set_tile(KernelInfo& k, int bm, int bn, int steps, int threads) {
  k.name = "tiny_mma_" + std::to_string(bm) + "x" + std::to_string(bn);
  k.tile.bm = bm;
  k.tile.bn = bn;
  k.tile.bk = 16 * steps;
  k.tile.wm = bm;
  k.tile.wn = bn;
  k.tile.threads = threads;
}

}  // namespace

void register_tiny_mma(Registry& r) {
  KernelInfo k;
  k.family = "tiny_mma";
  k.rung = 28;
  k.tile = TileConfig{};
  set_tile(k, BM, BN, kSteps, kThreads);
  k.tile.tm = 16;
  k.tile.tn = 8;
  k.tile.stages = 1;  // one round of loads a chunk, no pipeline
  // the warps' partial tiles, and the block's tile its cluster adds (K past 512)
  k.tile.smem_bytes = static_cast<int>(sizeof(float)) * (kWarps * BM * kRedLine + BM * BN);
  k.desc.op_class = OpClass::kMmaSync;
  k.desc.types = mma_sync::sixteen_bit_types();
  k.desc.types.push_back(GemmTypes{DType::kF32, DType::kF32});  // three tf32 products
  k.desc.accumulator = DType::kF32;
  k.desc.align_a = 1;  // fragments read by elements or pairs, C written in pairs where it allows
  k.desc.align_b = 1;
  k.desc.align_c = 1;
  k.desc.min_cc = kCpAsyncMinCc;  // mma.sync m16n8k16 (16-bit) and m16n8k8 (tf32): sm_80
  k.desc.max_cc = 0;
  k.desc.split_k = true;  // past K = 512, over the blocks of a cluster
  k.summary =
      "16-bit A/B on mma.sync (fp32 as three tf32 products) for tiny products: a block per 32 x "
      "32 tile of C (16 x 32 or 32 x 16 where C has at most 16 rows or columns), its eight warps "
      "on consecutive slices of K with fragments loaded straight from memory at any layout, pitch "
      "and base, the slices added in warp order through shared memory (up to K = 32 one warp a "
      "block, C of a 32-column tile stored a row at a time through its own tile in shared "
      "memory); past K = 512 the tile's K "
      "split over the blocks of a cluster (sm_90), added in split order through distributed "
      "shared memory (deterministic); one launch, no workspace, no barrier in the K loop";
  k.can_implement = can_implement_tiny_mma;
  k.launch = launch_tiny_mma;
  k.device_function = device_function_for(k.can_implement, device_function_tiny_mma);
  KernelInfo f = k;
  r.push_back(std::move(k));

  // One warp a 16 x 8 tile of C over its whole K (up to 128): at an odd pitch a k16 step is 12
  // loads a lane where the 32 x 32 tile's is 32, so its one round over K = 80 issues about as
  // many loads as the 32 x 32 one-warp kernel's over K = 32; the tiles spread over as many SMs.
  set_tile(f, kFragM, kFragN, kFragSteps, 32);
  f.tile.smem_bytes = 0;
  f.desc.split_k = false;
  f.summary =
      "16-bit A/B on mma.sync (fp32 as three tf32 products) for tiny products of K up to 128: a "
      "block of one warp per 16 x 8 "
      "tile of C, its fragments over the whole K loaded straight from memory at any layout, "
      "pitch and base in one round, C stored from the accumulators; no shared memory, no "
      "barrier";
  f.can_implement = can_implement_tiny_frag;
  f.launch = launch_tiny_frag;
  f.device_function = device_function_for(f.can_implement, device_function_tiny_frag);
  r.push_back(std::move(f));
}

}  // namespace tilegemm::kernels
