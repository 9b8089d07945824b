// Rung 11: cute_tiled -- the seed's `gemm_tiled` in CuTe: 128 x 128 x 8 block tiles staged in
// shared memory, 8 x 8 register tiles per thread, a TiledMMA of FMA atoms.
//
// What it adds over rung 10 (cute_simple): reuse. A block stages a 128 x 8 slice of A and of B
// in shared memory (make_tiled_copy: each thread copies 4 elements of each, a warp reading
// 4 x 32 contiguous bytes of a K-contiguous operand or 128 contiguous bytes of an M/N-contiguous
// one), and each of the 256 threads computes 8 x 8 outputs from 8 + 8 values per k step
// (TiledMMA of 16 x 16 UniversalFMA atoms; the fragments come from shared memory with LDS.128,
// see cute_common.cuh). Every element loaded from global memory is used 128 times.
// The shared tiles are double-buffered and the next K slice is loaded into registers while the
// current one is computed (one barrier per K step), so global latency hides behind 512 FMAs.
// Shared layouts are padded (conflict-free transposing stores, 16-byte aligned columns).
// Two entries: `cute_tiled` also double-buffers the fragments in registers across the barrier
// (k block 0 of the next buffer is read right after it, so no FFMA waits on a shared load there);
// `cute_tiled_single_frag` reads each k block's fragments just before its FFMAs (the seed's
// order), kept as the comparison.
// The seed targets 60-80% of cuBLAS; the issue asks >= 0.85 at 4096^3.
//
// Measurements: docs/cute.md (rung 11), docs/ladder.md (the table).
#include <string>
#include <utility>

#include "../families.hpp"
#include "cute_common.cuh"

namespace tilegemm::kernels {
namespace {

using namespace cute;  // NOLINT
using cute::Layout;    // not tilegemm::Layout
using namespace cute_gemm;

// Reads this thread's share of one (BX, BK) operand tile from global memory into registers.
// Elements outside the matrix read as zero: rows past M or N would only feed accumulators that
// are never stored, but k columns past K feed every accumulator, so they must add nothing.
// Interior tiles (all but the last M/N tile and the last K tile) skip the predicates.
template <int BX, int BK, class TiledCopy, class Src, class Dst, class Coords>
__device__ __forceinline__ void load_tile(const TiledCopy& tiled_copy, const Src& src, Dst& dst,
                                          const Coords& coords, int mn_residue, int k_residue) {
  if (mn_residue >= BX && k_residue >= BK) {
    copy(tiled_copy, src, dst);
  } else {
    CUTE_UNROLL
    for (int i = 0; i < size(dst); ++i) {
      dst(i) = elem_less(coords(i), make_coord(mn_residue, k_residue)) ? src(i) : 0.0f;
    }
  }
}

/// @tparam BM  rows of C per block (the TiledMMA's 16 threads x 8 values)
/// @tparam BN  columns of C per block (16 threads x 8 values)
/// @tparam BK  depth of one K step staged in shared memory
/// @tparam FRAGMENT_DB  false: each k block's fragments are read from shared memory just before
///                      its FFMAs (the seed's order); true: register double buffer, k block kb+1
///                      (block 0 of the next buffer, read right after the barrier) is read while
///                      kb computes, so no FFMA waits on a shared load after the barrier
template <int BM, int BN, int BK, bool FRAGMENT_DB>
__global__ void __launch_bounds__(kThreads, 2) cute_tiled_kernel(MnkArgs g) {
  // Preconditions
  static_assert(BM == kMmaTileM && BN == kMmaTileN,
                "the TiledMMA (16 x 16 threads, 8 x 8 values) covers exactly one block tile");
  static_assert(decltype(size(SimtMma{}))::value == kThreads, "one MMA thread per block thread");
  static_assert(BK >= 1 && kThreads % BK == 0, "the K-contiguous copy puts BK threads on a row");

  // Shared tiles, double-buffered: static layouts, (BM,BK,2) and (BN,BK,2), padded columns.
  using SmemLayoutA = PaddedSmemLayout<BM, BK, 2>;
  using SmemLayoutB = PaddedSmemLayout<BN, BK, 2>;
  struct SharedStorage {
    alignas(16) float a[cosize_v<SmemLayoutA>];
    alignas(16) float b[cosize_v<SmemLayoutB>];
  };
  __shared__ SharedStorage smem;

  // Full tensors: dynamic shapes and strides (any layout, any leading dimension).
  Tensor mA =
      make_tensor(make_gmem_ptr(g.a), make_shape(g.m, g.k), make_stride(g.a_dm, g.a_dk));  // (M,K)
  Tensor mB =
      make_tensor(make_gmem_ptr(g.b), make_shape(g.n, g.k), make_stride(g.b_dn, g.b_dk));  // (N,K)
  Tensor mC =
      make_tensor(make_gmem_ptr(g.c), make_shape(g.m, g.n), make_stride(g.c_dm, g.c_dn));  // (M,N)

  // This block's tiles: static tile shape, dynamic position; k indexes the K steps.
  auto cta_tiler = Shape<Int<BM>, Int<BN>, Int<BK>>{};
  auto cta_coord = make_coord(static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.x), _);
  Tensor gA = local_tile(mA, cta_tiler, cta_coord, Step<_1, X, _1>{});  // (BM,BK,k)
  Tensor gB = local_tile(mB, cta_tiler, cta_coord, Step<X, _1, _1>{});  // (BN,BK,k)
  Tensor gC = local_tile(mC, cta_tiler, cta_coord, Step<_1, _1, X>{});  // (BM,BN)

  // Coordinates within a tile, for the edge predicates (static shapes).
  Tensor cA = make_identity_tensor(Shape<Int<BM>, Int<BK>>{});  // (BM,BK) -> (m,k)
  Tensor cB = make_identity_tensor(Shape<Int<BN>, Int<BK>>{});  // (BN,BK) -> (n,k)
  Tensor cC = make_identity_tensor(Shape<Int<BM>, Int<BN>>{});  // (BM,BN) -> (m,n)
  // How far the matrix extends from this tile's corner (> 0; < BM or BN only on edge tiles).
  const int m_residue = g.m - static_cast<int>(blockIdx.y) * BM;
  const int n_residue = g.n - static_cast<int>(blockIdx.x) * BN;

  Tensor sA = make_tensor(make_smem_ptr(smem.a), SmemLayoutA{});  // (BM,BK,2)
  Tensor sB = make_tensor(make_smem_ptr(smem.b), SmemLayoutB{});  // (BN,BK,2)

  // Global -> registers -> shared: scalar copies (the strides are dynamic, so nothing is
  // provably contiguous). A is read k-fastest (a warp: 4 rows x 8 consecutive k), B n-fastest
  // (a warp: 32 consecutive n): coalesced for the default row-major A and B.
  using CopyAtom = Copy_Atom<UniversalCopy<float>, float>;
  auto copy_a = make_gmem_tiled_copy<GmemOrder::kScalarK, CopyAtom, BM, BK>();
  auto copy_b = make_gmem_tiled_copy<GmemOrder::kScalarMN, CopyAtom, BN, BK>();
  ThrCopy thr_copy_a = copy_a.get_slice(threadIdx.x);
  Tensor tAgA = thr_copy_a.partition_S(gA);            // (CPY,CPY_M,CPY_K,k)
  Tensor tAsA = thr_copy_a.partition_D(sA);            // (CPY,CPY_M,CPY_K,2)
  Tensor tAcA = thr_copy_a.partition_S(cA);            // (CPY,CPY_M,CPY_K) -> (m,k)
  Tensor tArA = make_fragment_like(tAsA(_, _, _, 0));  // (CPY,CPY_M,CPY_K) staging registers
  ThrCopy thr_copy_b = copy_b.get_slice(threadIdx.x);
  Tensor tBgB = thr_copy_b.partition_S(gB);            // (CPY,CPY_N,CPY_K,k)
  Tensor tBsB = thr_copy_b.partition_D(sB);            // (CPY,CPY_N,CPY_K,2)
  Tensor tBcB = thr_copy_b.partition_S(cB);            // (CPY,CPY_N,CPY_K) -> (n,k)
  Tensor tBrB = make_fragment_like(tBsB(_, _, _, 0));  // (CPY,CPY_N,CPY_K)

  // Shared -> registers -> FMA: this thread's 8 x 8 outputs.
  SimtMma mma;
  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA,MMA_M,MMA_K,2)
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA,MMA_N,MMA_K,2)
  Tensor tCgC = thr_mma.partition_C(gC);                    // (MMA,MMA_M,MMA_N)
  Tensor tCcC = thr_mma.partition_C(cC);                    // (MMA,MMA_M,MMA_N) -> (m,n)
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));  // (MMA,MMA_M,MMA_K)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));  // (MMA,MMA_N,MMA_K)
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);              // (MMA,MMA_M,MMA_N) accumulators
  CUTE_STATIC_ASSERT_V(size(tCrC) == Int<kThreadTileM * kThreadTileN>{});  // 8 x 8 per thread
  clear(tCrC);

  const int k_tiles = size<2>(gA);
  if constexpr (!FRAGMENT_DB) {
    // Prologue: K step 0 into shared buffer 0.
    load_tile<BM, BK>(copy_a, tAgA(_, _, _, 0), tArA, tAcA, m_residue, g.k);
    load_tile<BN, BK>(copy_b, tBgB(_, _, _, 0), tBrB, tBcB, n_residue, g.k);
    copy(copy_a, tArA, tAsA(_, _, _, 0));
    copy(copy_b, tBrB, tBsB(_, _, _, 0));
    __syncthreads();

    CUTE_NO_UNROLL
    for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
      const int read = k_tile & 1;
      const bool has_next = k_tile + 1 < k_tiles;
      // Issue the next K step's global loads now; they land while this step computes.
      if (has_next) {
        const int k_residue = g.k - (k_tile + 1) * BK;
        load_tile<BM, BK>(copy_a, tAgA(_, _, _, k_tile + 1), tArA, tAcA, m_residue, k_residue);
        load_tile<BN, BK>(copy_b, tBgB(_, _, _, k_tile + 1), tBrB, tBcB, n_residue, k_residue);
      }
      CUTE_UNROLL
      for (int k_block = 0; k_block < BK; ++k_block) {
        copy(tCsA(_, _, k_block, read), tCrA(_, _, k_block));             // 2 x LDS.128
        copy(tCsB(_, _, k_block, read), tCrB(_, _, k_block));             // 2 x LDS.128
        cute::gemm(mma, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrC);  // 64 FFMA
      }
      // The other buffer was last read in the previous step, before the barrier that ended it.
      if (has_next) {
        copy(copy_a, tArA, tAsA(_, _, _, read ^ 1));
        copy(copy_b, tBrB, tBsB(_, _, _, read ^ 1));
      }
      __syncthreads();  // the next buffer is complete, and nobody still reads this one
    }
  } else {
    // Prologue: K step 0 into shared buffer 0, and its first k block into registers.
    load_tile<BM, BK>(copy_a, tAgA(_, _, _, 0), tArA, tAcA, m_residue, g.k);
    load_tile<BN, BK>(copy_b, tBgB(_, _, _, 0), tBrB, tBcB, n_residue, g.k);
    copy(copy_a, tArA, tAsA(_, _, _, 0));
    copy(copy_b, tBrB, tBsB(_, _, _, 0));
    __syncthreads();
    copy(tCsA(_, _, 0, 0), tCrA(_, _, 0));
    copy(tCsB(_, _, 0, 0), tCrB(_, _, 0));

    CUTE_NO_UNROLL
    for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
      const int read = k_tile & 1;
      const bool has_next = k_tile + 1 < k_tiles;
      Tensor tCsA_this = tCsA(_, _, _, read);      // (MMA,MMA_M,MMA_K)
      Tensor tCsB_this = tCsB(_, _, _, read);      // (MMA,MMA_N,MMA_K)
      Tensor tCsA_next = tCsA(_, _, _, read ^ 1);  // (MMA,MMA_M,MMA_K)
      Tensor tCsB_next = tCsB(_, _, _, read ^ 1);  // (MMA,MMA_N,MMA_K)
      // Issue the next K step's global loads now; they land while this step computes.
      if (has_next) {
        const int k_residue = g.k - (k_tile + 1) * BK;
        load_tile<BM, BK>(copy_a, tAgA(_, _, _, k_tile + 1), tArA, tAcA, m_residue, k_residue);
        load_tile<BN, BK>(copy_b, tBgB(_, _, _, k_tile + 1), tBrB, tBcB, n_residue, k_residue);
      }
      CUTE_UNROLL
      for (int k_block = 0; k_block < BK; ++k_block) {
        const bool last_block = k_block == BK - 1;
        if (last_block) {
          // The other buffer was last read in the previous step, before the barrier that ended
          // it; the barrier here makes the new K step complete, and nobody reads this buffer
          // after it.
          if (has_next) {
            copy(copy_a, tArA, tAsA(_, _, _, read ^ 1));
            copy(copy_b, tBrB, tBsB(_, _, _, read ^ 1));
          }
          __syncthreads();
        }
        // Register double buffer: k block kb+1 (block 0 of the next buffer after the barrier)
        // is read while kb computes, so no FFMA waits on a shared load. Unconditional: after the
        // last step it reads stale values that go unused (a guarded, predicated load would tie
        // the registers to their old values and hold the FFMAs behind the barrier).
        const int k_block_next = (k_block + 1) % BK;
        if (last_block) {
          copy(tCsA_next(_, _, 0), tCrA(_, _, 0));  // 2 x LDS.128
          copy(tCsB_next(_, _, 0), tCrB(_, _, 0));  // 2 x LDS.128
        } else {
          copy(tCsA_this(_, _, k_block_next), tCrA(_, _, k_block_next));  // 2 x LDS.128
          copy(tCsB_this(_, _, k_block_next), tCrB(_, _, k_block_next));  // 2 x LDS.128
        }
        cute::gemm(mma, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrC);  // 64 FFMA
      }
    }
  }

  store_accumulators(tCrC, tCgC, tCcC, make_coord(m_residue, n_residue), g.alpha, g.beta);
}

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;

// The kernel reads A k-fastest and B n-fastest. When A is M-contiguous and B is K-contiguous
// (both column-major), the mirrored problem C^T = B^T * A^T has exactly the preferred orders.
Problem plan(const Problem& p) {
  const MnkProblem q = to_mnk(p);
  return (q.a_dm == 1 && q.b_dn != 1) ? views::mirrored(p) : p;
}

bool can_implement_tiled(const Problem& p) {
  return views::fits_int32(plan(p), kBM, kBN, kBK);
}

template <bool FRAGMENT_DB>
cudaError_t launch_tiled(const Problem& p, cudaStream_t stream) {
  const Problem view = plan(p);
  cute_tiled_kernel<kBM, kBN, kBK, FRAGMENT_DB>
      <<<tile_grid(view, kBM, kBN), kThreads, 0, stream>>>(to_args(to_mnk(view)));
  return cudaGetLastError();
}

// One instance per entry serves every layout (plan mirrors the problem, not the kernel).
template <bool FRAGMENT_DB>
const void* tiled_function(const Problem&) {
  return kernel_address(&cute_tiled_kernel<kBM, kBN, kBK, FRAGMENT_DB>);
}

template <bool FRAGMENT_DB>
KernelInfo tiled_info(std::string name, std::string summary) {
  KernelInfo k;
  k.name = std::move(name);
  k.family = "cute_tiled";
  k.rung = 11;
  k.tile.bm = kBM;
  k.tile.bn = kBN;
  k.tile.bk = kBK;
  k.tile.wm = kWarpTileM;
  k.tile.wn = kWarpTileN;
  k.tile.tm = kThreadTileM;
  k.tile.tn = kThreadTileN;
  k.tile.threads = kThreads;
  k.tile.stages = 2;
  k.tile.smem_bytes = static_cast<int>(sizeof(float) * (cosize_v<PaddedSmemLayout<kBM, kBK, 2>> +
                                                        cosize_v<PaddedSmemLayout<kBN, kBK, 2>>));
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // 4-byte copies and stores: any alignment
  k.summary = std::move(summary);
  k.can_implement = can_implement_tiled;
  k.launch = launch_tiled<FRAGMENT_DB>;
  k.device_function = device_function_for(can_implement_tiled, tiled_function<FRAGMENT_DB>);
  return k;
}

}  // namespace

void register_cute_tiled(Registry& r) {
  // The headline takes the fragment double-buffering, the faster form (docs/cute.md); the
  // single-buffered form stays registered as the comparison.
  r.push_back(tiled_info<true>(
      "cute_tiled",
      "CuTe 128x128x8 shared tiles (padded, double-buffered through registers), TiledMMA of FMA "
      "atoms, 8x8 per thread, fragments double-buffered across the barrier (the seed's "
      "gemm_tiled)"));
  r.push_back(tiled_info<false>(
      "cute_tiled_single_frag",
      "cute_tiled with one fragment buffer: the k block's fragments are read from shared memory "
      "just before its FMAs (the form first measured)"));
}

}  // namespace tilegemm::kernels
