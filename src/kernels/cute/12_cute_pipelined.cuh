// The kernel template of rung 12 (`cute_pipelined`), its instantiation plan and launcher,
// shared by 12_cute_pipelined.cu (the headline entry) and 12_cute_pipelined_variants.cu (the
// candidate configurations measured against it). See 12_cute_pipelined.cu for what the rung
// adds and why. Included only by those two files.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "../families.hpp"
#include "../../core/device_runtime.hpp"  // runtime::opt_in_smem (dynamic smem above 48 KB)
#include "cute_common.cuh"

namespace tilegemm::kernels::cute_pipelined {

using namespace cute;  // NOLINT
using cute::Layout;    // not tilegemm::Layout
using namespace cute_gemm;

// The cp.async atom for an operand: 16 bytes through L2 only (.cg) for vectors, 4 bytes
// through L1 (.ca, the only caching 4-byte cp.async has) otherwise. Both are the ZFILL forms:
// a false predicate copies zero bytes and fills the destination with zeros.
template <GmemOrder Order>
using AsyncCopyAtom =
    std::conditional_t<Order == GmemOrder::kVectorMN,
                       Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<uint128_t>, float>,
                       Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS_ZFILL<float>, float>>;

// Issues this thread's cp.async copies of one (BX, BK) operand tile into a shared stage.
// Interior tiles copy unpredicated. Edge tiles test each copy's first (mn, k) against the
// residue: a vector never straddles the edge (plan() requires extents that are multiples of 4
// for the vector instances). Elements outside the matrix become zeros -- k columns past K
// must add nothing to the accumulators -- and their copy names `in_bounds` (the matrix's first
// element) as its source, so no address outside the matrix is ever formed for a read.
template <int BX, int BK, class TiledCopy, class Src, class Dst, class Coords>
__device__ __forceinline__ void load_tile_async(const TiledCopy& tiled_copy, const Src& src,
                                                Dst&& dst, const Coords& coords, int mn_residue,
                                                int k_residue, const float* in_bounds) {
  if (mn_residue >= BX && k_residue >= BK) {
    copy(tiled_copy, src, dst);
    return;
  }
  CUTE_UNROLL
  for (int i = 0; i < size<1>(dst); ++i) {
    CUTE_UNROLL
    for (int j = 0; j < size<2>(dst); ++j) {
      const bool inside = elem_less(coords(0, i, j), make_coord(mn_residue, k_residue));
      Tensor src_ij = src(_, i, j);  // (CPY)
      Tensor safe_src = make_tensor(inside ? src_ij.data() : make_gmem_ptr(in_bounds),
                                    src_ij.layout());  // (CPY)
      copy(tiled_copy.with(inside), safe_src, dst(_, i, j));
    }
  }
}

/// @tparam ORDER_A  how A's tile is copied (GmemOrder: kScalarK, kScalarMN or kVectorMN)
/// @tparam ORDER_B  how B's tile is copied
/// @tparam BM       rows of C per block (the TiledMMA's 16 threads x 8 values)
/// @tparam BN       columns of C per block: 128 (8 values a thread) or 256 (16 values)
/// @tparam BK       depth of one K step (one shared stage)
/// @tparam STAGES   shared stages: STAGES - 1 K steps in flight while one is computed
template <GmemOrder ORDER_A, GmemOrder ORDER_B, int BM, int BN, int BK, int STAGES>
__global__ void __launch_bounds__(kThreads, BN == 128 ? 2 : 1) cute_pipelined_kernel(MnkArgs g) {
  using Mma = SimtMmaT<BN / 16>;  // 16 x 16 threads, 8 x (BN / 16) values each
  // Preconditions
  static_assert(BM == kMmaTileM && (BN == 128 || BN == 256),
                "the TiledMMA (16 x 16 threads, 8 x BN/16 values) covers exactly one block tile");
  static_assert(decltype(size(Mma{}))::value == kThreads, "one MMA thread per block thread");
  static_assert(STAGES >= 2, "a pipeline needs a stage to compute from and one to fill");
  static_assert(BK >= 2, "the register double buffer fetches k block kb+1 while kb computes");

  // Shared stages: static layouts (BM,BK,STAGES) and (BN,BK,STAGES), padded columns, in
  // dynamic shared memory (more than 48 KB for the larger configurations; the launcher opts in).
  using SmemLayoutA = PaddedSmemLayout<BM, BK, STAGES>;
  using SmemLayoutB = PaddedSmemLayout<BN, BK, STAGES>;
  static_assert(cosize_v<SmemLayoutA> % 4 == 0, "B's tile starts 16-byte aligned after A's");
  extern __shared__ float4 smem_dynamic[];  // float4: 16-byte aligned
  float* smem_a = reinterpret_cast<float*>(smem_dynamic);
  float* smem_b = smem_a + cosize_v<SmemLayoutA>;

  // Full tensors: dynamic shapes; a vector operand's M/N stride is the static _1 (see
  // operand_stride), every other stride dynamic.
  Tensor mA = make_tensor(make_gmem_ptr(g.a), make_shape(g.m, g.k),
                          operand_stride<ORDER_A>(g.a_dm, g.a_dk));  // (M,K)
  Tensor mB = make_tensor(make_gmem_ptr(g.b), make_shape(g.n, g.k),
                          operand_stride<ORDER_B>(g.b_dn, g.b_dk));  // (N,K)
  Tensor mC =
      make_tensor(make_gmem_ptr(g.c), make_shape(g.m, g.n), make_stride(g.c_dm, g.c_dn));  // (M,N)

  // This block's tiles: static tile shape, dynamic position; k indexes the K steps.
  auto cta_tiler = Shape<Int<BM>, Int<BN>, Int<BK>>{};
  const auto tile_mn = block_tile_coord(g.raster_group);  // (M tile, N tile), rasterised
  const int tile_m = get<0>(tile_mn);
  const int tile_n = get<1>(tile_mn);
  auto cta_coord = make_coord(tile_m, tile_n, _);
  Tensor gA = local_tile(mA, cta_tiler, cta_coord, Step<_1, X, _1>{});  // (BM,BK,k)
  Tensor gB = local_tile(mB, cta_tiler, cta_coord, Step<X, _1, _1>{});  // (BN,BK,k)
  Tensor gC = local_tile(mC, cta_tiler, cta_coord, Step<_1, _1, X>{});  // (BM,BN)

  // Coordinates within a tile, for the edge predicates (static shapes).
  Tensor cA = make_identity_tensor(Shape<Int<BM>, Int<BK>>{});  // (BM,BK) -> (m,k)
  Tensor cB = make_identity_tensor(Shape<Int<BN>, Int<BK>>{});  // (BN,BK) -> (n,k)
  Tensor cC = make_identity_tensor(Shape<Int<BM>, Int<BN>>{});  // (BM,BN) -> (m,n)
  // How far the matrix extends from this tile's corner (> 0; < BM or BN only on edge tiles).
  const int m_residue = g.m - tile_m * BM;
  const int n_residue = g.n - tile_n * BN;

  Tensor sA = make_tensor(make_smem_ptr(smem_a), SmemLayoutA{});  // (BM,BK,STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), SmemLayoutB{});  // (BN,BK,STAGES)

  // Global -> shared, asynchronous.
  auto copy_a = make_gmem_tiled_copy<ORDER_A, AsyncCopyAtom<ORDER_A>, BM, BK>();
  auto copy_b = make_gmem_tiled_copy<ORDER_B, AsyncCopyAtom<ORDER_B>, BN, BK>();
  ThrCopy thr_copy_a = copy_a.get_slice(threadIdx.x);
  Tensor tAgA = thr_copy_a.partition_S(gA);  // (CPY,CPY_M,CPY_K,k)
  Tensor tAsA = thr_copy_a.partition_D(sA);  // (CPY,CPY_M,CPY_K,STAGES)
  Tensor tAcA = thr_copy_a.partition_S(cA);  // (CPY,CPY_M,CPY_K) -> (m,k)
  ThrCopy thr_copy_b = copy_b.get_slice(threadIdx.x);
  Tensor tBgB = thr_copy_b.partition_S(gB);  // (CPY,CPY_N,CPY_K,k)
  Tensor tBsB = thr_copy_b.partition_D(sB);  // (CPY,CPY_N,CPY_K,STAGES)
  Tensor tBcB = thr_copy_b.partition_S(cB);  // (CPY,CPY_N,CPY_K) -> (n,k)

  // Shared -> registers -> FMA: this thread's 8 x (BN / 16) outputs.
  Mma mma;
  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA,MMA_M,MMA_K,STAGES)
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA,MMA_N,MMA_K,STAGES)
  Tensor tCgC = thr_mma.partition_C(gC);                    // (MMA,MMA_M,MMA_N)
  Tensor tCcC = thr_mma.partition_C(cC);                    // (MMA,MMA_M,MMA_N) -> (m,n)
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));  // (MMA,MMA_M,MMA_K)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));  // (MMA,MMA_N,MMA_K)
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);              // (MMA,MMA_M,MMA_N) accumulators
  CUTE_STATIC_ASSERT_V(size(tCrC) == Int<kThreadTileM * (BN / 16)>{});  // 8 x 8 or 8 x 16
  clear(tCrC);

  // K tile j lives in stage j % STAGES. One commit group per K tile (empty past the last),
  // so "tile j has landed" is always "all but the newest STAGES - 2 groups are complete".
  const int k_tiles = size<2>(gA);
  CUTE_UNROLL
  for (int stage = 0; stage < STAGES - 1; ++stage) {
    if (stage < k_tiles) {
      const int k_residue = g.k - stage * BK;
      load_tile_async<BM, BK>(copy_a, tAgA(_, _, _, stage), tAsA(_, _, _, stage), tAcA, m_residue,
                              k_residue, g.a);
      load_tile_async<BN, BK>(copy_b, tBgB(_, _, _, stage), tBsB(_, _, _, stage), tBcB, n_residue,
                              k_residue, g.b);
    }
    cp_async_fence();
  }

  int read_stage = 0;            // stage of the K tile being computed
  int write_stage = STAGES - 1;  // stage the next fetch fills: the one computed a step ago
  Tensor tCsA_read = tCsA(_, _, _, read_stage);  // (MMA,MMA_M,MMA_K)
  Tensor tCsB_read = tCsB(_, _, _, read_stage);  // (MMA,MMA_N,MMA_K)

  // Tile 0 has landed and is visible to every thread; its first k block goes to registers.
  cp_async_wait<STAGES - 2>();
  __syncthreads();
  copy(tCsA_read(_, _, 0), tCrA(_, _, 0));
  copy(tCsB_read(_, _, 0), tCrB(_, _, 0));

  CUTE_NO_UNROLL
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    CUTE_UNROLL
    for (int k_block = 0; k_block < BK; ++k_block) {
      const bool last_block = k_block == BK - 1;
      if (last_block) {
        // Move to the next tile's stage: its copies (this thread's) have landed, and the
        // barrier makes every thread's visible -- and guarantees that nobody still reads the
        // stage computed a step ago, which the next fetch overwrites.
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        tCsA_read = tCsA(_, _, _, read_stage);
        tCsB_read = tCsB(_, _, _, read_stage);
        cp_async_wait<STAGES - 2>();
        __syncthreads();
      }
      // Register double buffer: fetch k block kb+1 (block 0 of the next tile when kb is the
      // last) while kb computes. Unconditional: after the last tile the fetch reads a stage
      // that no cp.async still writes (every group left is empty) and its values go unused.
      // A guard here would make the loads predicated, which ties each destination register to
      // its old value and kept ptxas from moving the last k block's FFMAs above the barrier
      // (SASS analysis in docs/cute.md).
      const int k_block_next = (k_block + 1) % BK;
      copy(tCsA_read(_, _, k_block_next), tCrA(_, _, k_block_next));  // 2 x LDS.128
      copy(tCsB_read(_, _, k_block_next), tCrB(_, _, k_block_next));  // BN / 64 x LDS.128
      if (k_block == 0) {
        // Refill the stage freed by the previous step's barrier with tile k_tile + STAGES - 1.
        const int fetch = k_tile + STAGES - 1;
        if (fetch < k_tiles) {
          const int k_residue = g.k - fetch * BK;
          load_tile_async<BM, BK>(copy_a, tAgA(_, _, _, fetch), tAsA(_, _, _, write_stage), tAcA,
                                  m_residue, k_residue, g.a);
          load_tile_async<BN, BK>(copy_b, tBgB(_, _, _, fetch), tBsB(_, _, _, write_stage), tBcB,
                                  n_residue, k_residue, g.b);
        }
        cp_async_fence();
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
      }
      cute::gemm(mma, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrC);  // 8 x BN/16 FFMA
    }
  }

  store_accumulators(tCrC, tCgC, tCcC, make_coord(m_residue, n_residue), g.alpha, g.beta);
}

/// One configuration of the family.
/// @tparam BN           columns of C per block: 128 or 256 (BM is 128)
/// @tparam BK           depth of one K step
/// @tparam STAGES       shared stages
/// @tparam ALL_ORDERS   true: four instantiations, one per operand arrangement (see plan);
///                      false: two (aligned row-major A and B, and the any-layout fallback),
///                      which still take every problem, at half the compile time
template <int BN_, int BK_, int STAGES_, bool ALL_ORDERS_>
struct Config {
  static constexpr int BM = 128, BN = BN_, BK = BK_, STAGES = STAGES_;
  static constexpr bool ALL_ORDERS = ALL_ORDERS_;
  static constexpr int kSmemBytes =
      static_cast<int>(sizeof(float) * (cosize_v<PaddedSmemLayout<BM, BK, STAGES>> +
                                        cosize_v<PaddedSmemLayout<BN, BK, STAGES>>));
  // f32 SIMT (FFMA); either operand may be copied as 16-byte vectors (mirrored into B's place
  // when it is A), so both need 4-element alignment for the fast path; C is stored by element.
  // cp.async: sm_80 and later.
  static KernelDesc desc() { return simt_f32_desc(4, 4, 1, kCpAsyncMinCc); }
};

// `view` is the problem as the instantiation sees it (plan() may have mirrored it).
using Launcher = cudaError_t (*)(const Problem& view, int raster_group, cudaStream_t);

// Launches one instantiation; the first launch on a device opts in to its shared memory.
template <class C, GmemOrder ORDER_A, GmemOrder ORDER_B>
cudaError_t launch_instance(const Problem& view, int raster_group, cudaStream_t stream) {
  auto kernel = &cute_pipelined_kernel<ORDER_A, ORDER_B, C::BM, C::BN, C::BK, C::STAGES>;
  static std::atomic<std::uint64_t> opted_in_devices{0};
  if (cudaError_t err = runtime::opt_in_smem(reinterpret_cast<const void*>(kernel), C::kSmemBytes,
                                             opted_in_devices);
      err != cudaSuccess) {
    return err;
  }
  kernel<<<tile_grid(view, C::BM, C::BN), kThreads, C::kSmemBytes, stream>>>(
      to_args(to_mnk(view), raster_group));
  return cudaGetLastError();
}

// Which instantiation runs a problem, and on which (possibly mirrored) view of it.
struct Plan {
  Problem view;
  Launcher launch;
  const void* kernel;  // the __global__ function launch runs (KernelInfo::device_function)
};

template <class C, GmemOrder ORDER_A, GmemOrder ORDER_B>
Plan make_plan(const Problem& view) {
  return Plan{
      view, launch_instance<C, ORDER_A, ORDER_B>,
      kernel_address(&cute_pipelined_kernel<ORDER_A, ORDER_B, C::BM, C::BN, C::BK, C::STAGES>)};
}

// A vector operand needs its M/N mode contiguous and 16-byte aligned (vectorizable). The
// instantiations put the vector operand in B's place, so a problem whose only vector operand
// is A is mirrored (C^T = B^T * A^T). Without vectors: both K-contiguous (row-major A,
// column-major B) has its own instance; every other problem runs with A copied k-fastest and
// B n-fastest, mirrored first when that puts an M/N-contiguous operand in B's place.
// Configurations without ALL_ORDERS keep only (kScalarK, kVectorMN) and the fallback
// (kScalarK, kScalarMN), which is correct for any strides (merely slower for the others).
template <class C>
Plan plan(const Problem& p) {
  const MnkProblem q = to_mnk(p);
  const bool vec_a = vectorizable(p.a, q.a_dm, q.m);
  const bool vec_b = vectorizable(p.b, q.b_dn, q.n);
  if constexpr (C::ALL_ORDERS) {
    if (vec_a && vec_b) return make_plan<C, GmemOrder::kVectorMN, GmemOrder::kVectorMN>(p);
  }
  if (vec_a || vec_b) {
    return make_plan<C, GmemOrder::kScalarK, GmemOrder::kVectorMN>(vec_b ? p : views::mirrored(p));
  }
  const bool mn_contiguous_a = q.a_dm == 1;
  const bool mn_contiguous_b = q.b_dn == 1;
  if constexpr (C::ALL_ORDERS) {
    if (!mn_contiguous_a && !mn_contiguous_b) {
      return make_plan<C, GmemOrder::kScalarK, GmemOrder::kScalarK>(p);
    }
  }
  return make_plan<C, GmemOrder::kScalarK, GmemOrder::kScalarMN>(
      mn_contiguous_a && !mn_contiguous_b ? views::mirrored(p) : p);
}

template <class C>
bool can_implement(const Problem& p) {
  return views::fits_int32(plan<C>(p).view, C::BM, C::BN, C::BK);
}

template <class C>
cudaError_t launch(const Problem& p, int raster_group, cudaStream_t stream) {
  const Plan pl = plan<C>(p);
  return pl.launch(pl.view, raster_group, stream);
}

// The instantiation launch() runs for this problem; null when can_implement rejects it.
template <class C>
const void* device_function(const Problem& p) {
  const Plan pl = plan<C>(p);
  return views::fits_int32(pl.view, C::BM, C::BN, C::BK) ? pl.kernel : nullptr;
}

// A registry entry for configuration C; name and summary are the caller's.
template <class C>
KernelInfo make_info(std::string name, int raster_group, std::string summary) {
  KernelInfo k;
  k.name = std::move(name);
  k.family = "cute_pipelined";
  k.rung = 12;
  k.tile.bm = C::BM;
  k.tile.bn = C::BN;
  k.tile.bk = C::BK;
  k.tile.wm = kWarpTileM;
  k.tile.wn = 8 * (C::BN / 16);  // 8 threads x BN/16 values
  k.tile.tm = kThreadTileM;
  k.tile.tn = C::BN / 16;
  k.tile.threads = kThreads;
  k.tile.stages = C::STAGES;
  k.tile.smem_bytes = C::kSmemBytes;
  k.desc = C::desc();
  k.summary = std::move(summary);
  k.can_implement = can_implement<C>;
  k.launch = [raster_group](const Problem& p, cudaStream_t stream) {
    return launch<C>(p, raster_group, stream);
  };
  k.device_function = device_function<C>;
  return k;
}

}  // namespace tilegemm::kernels::cute_pipelined
