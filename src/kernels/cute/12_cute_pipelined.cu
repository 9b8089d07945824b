// Rung 12: cute_pipelined -- an SM80-style multi-stage cp.async pipeline in CuTe, in the manner
// of CUTLASS's examples/cute/tutorial/sgemm_sm80.cu: 128 x 128 x 8 block tiles, 3 shared
// stages, register double-buffering of the shared-to-register fragment copies.
//
// What it adds over rung 11 (cute_tiled): the global-to-shared copies no longer pass through
// registers. cp.async (LDGSTS) writes shared memory directly, and STAGES - 1 = 2 K steps are in
// flight while one is computed, so a block no longer stalls on global latency at each step and
// keeps no staging registers. An operand whose M or N mode is contiguous and 16-byte aligned
// is copied in 16-byte vectors (cp.async.cg, bypassing L1); any other operand in 4-byte
// copies (cp.async.ca), so every layout, leading dimension and alignment is taken. Elements
// outside the matrix are zero-filled by the copy itself (src-size 0). Inside a K step, the
// fragments of k block kb+1 are read from shared memory while kb computes.
// Target (the issue): >= 0.95 of cuBLAS SGEMM at 4096^3 and 8192^3 on H100/H200.
//
// One registry entry, four instantiations picked at launch (see `plan`): (A order, B order) =
// (K scalar, MN vector) for row-major A and B when aligned, (MN vector, MN vector), (K scalar,
// K scalar), and (K scalar, MN scalar) for everything else; mirrored problems reuse them.
//
// Measured: pending GPU run
//   (`tilegemm bench --kernels cute_pipelined --shape 4096x4096x4096`, beside cuBLAS).
#include "../families.hpp"
#include "cute_common.cuh"

namespace tilegemm::kernels {
namespace {

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
/// @tparam BN       columns of C per block
/// @tparam BK       depth of one K step (one shared stage)
/// @tparam STAGES   shared stages: STAGES - 1 K steps in flight while one is computed
template <GmemOrder ORDER_A, GmemOrder ORDER_B, int BM, int BN, int BK, int STAGES>
__global__ void __launch_bounds__(kThreads, 2) cute_pipelined_kernel(MnkArgs g) {
  // Preconditions
  static_assert(BM == kMmaTileM && BN == kMmaTileN,
                "the TiledMMA (16 x 16 threads, 8 x 8 values) covers exactly one block tile");
  static_assert(decltype(size(SimtMma{}))::value == kThreads, "one MMA thread per block thread");
  static_assert(STAGES >= 2, "a pipeline needs a stage to compute from and one to fill");
  static_assert(BK >= 2, "the register double buffer fetches k block kb+1 while kb computes");

  // Shared stages: static layouts (BM,BK,STAGES) and (BN,BK,STAGES), padded columns.
  using SmemLayoutA = PaddedSmemLayout<BM, BK, STAGES>;
  using SmemLayoutB = PaddedSmemLayout<BN, BK, STAGES>;
  struct SharedStorage {
    alignas(16) float a[cosize_v<SmemLayoutA>];
    alignas(16) float b[cosize_v<SmemLayoutB>];
  };
  __shared__ SharedStorage smem;

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

  Tensor sA = make_tensor(make_smem_ptr(smem.a), SmemLayoutA{});  // (BM,BK,STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem.b), SmemLayoutB{});  // (BN,BK,STAGES)

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

  // Shared -> registers -> FMA: this thread's 8 x 8 outputs.
  SimtMma mma;
  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA,MMA_M,MMA_K,STAGES)
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA,MMA_N,MMA_K,STAGES)
  Tensor tCgC = thr_mma.partition_C(gC);                    // (MMA,MMA_M,MMA_N)
  Tensor tCcC = thr_mma.partition_C(cC);                    // (MMA,MMA_M,MMA_N) -> (m,n)
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));  // (MMA,MMA_M,MMA_K)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));  // (MMA,MMA_N,MMA_K)
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);              // (MMA,MMA_M,MMA_N) accumulators
  CUTE_STATIC_ASSERT_V(size(tCrC) == Int<kThreadTileM * kThreadTileN>{});  // 8 x 8 per thread
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
      // last) while kb computes. Past the last tile there is nothing to fetch.
      const int k_block_next = (k_block + 1) % BK;
      if (!last_block || k_tile + 1 < k_tiles) {
        copy(tCsA_read(_, _, k_block_next), tCrA(_, _, k_block_next));  // 2 x LDS.128
        copy(tCsB_read(_, _, k_block_next), tCrB(_, _, k_block_next));  // 2 x LDS.128
      }
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
      cute::gemm(mma, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrC);  // 64 FFMA
    }
  }

  store_accumulators(tCrC, tCgC, tCcC, make_coord(m_residue, n_residue), g.alpha, g.beta);
}

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kStages = 3;

using KernelFn = void (*)(MnkArgs);

template <GmemOrder ORDER_A, GmemOrder ORDER_B>
constexpr KernelFn instance() {
  return &cute_pipelined_kernel<ORDER_A, ORDER_B, kBM, kBN, kBK, kStages>;
}

// Which instantiation runs a problem, and on which (possibly mirrored) form of it.
struct Plan {
  MnkProblem q;
  KernelFn kernel;
};

// A vector operand needs its M/N mode contiguous and 16-byte aligned (vectorizable). The
// instantiations put the vector operand in B's place, so a problem whose only vector operand
// is A is mirrored (C^T = B^T * A^T). Without vectors: both K-contiguous (row-major A,
// column-major B) has its own instance; every other problem runs with A copied k-fastest and
// B n-fastest, mirrored first when that puts an M/N-contiguous operand in B's place.
Plan plan(const Problem& p) {
  MnkProblem q = to_mnk(p);
  const bool vec_a = vectorizable(q.a, q.a_dm, q.a_dk, q.m);
  const bool vec_b = vectorizable(q.b, q.b_dn, q.b_dk, q.n);
  if (vec_a && vec_b) return {q, instance<GmemOrder::kVectorMN, GmemOrder::kVectorMN>()};
  if (vec_a || vec_b) {
    if (vec_a) q = mirrored(q);
    return {q, instance<GmemOrder::kScalarK, GmemOrder::kVectorMN>()};
  }
  const bool mn_contiguous_a = q.a_dm == 1;
  const bool mn_contiguous_b = q.b_dn == 1;
  if (!mn_contiguous_a && !mn_contiguous_b) {
    return {q, instance<GmemOrder::kScalarK, GmemOrder::kScalarK>()};
  }
  if (mn_contiguous_a && !mn_contiguous_b) q = mirrored(q);
  return {q, instance<GmemOrder::kScalarK, GmemOrder::kScalarMN>()};
}

bool can_implement_pipelined(const Problem& p) {
  return fits_int32(plan(p).q, kBM, kBN, kBK);
}

cudaError_t launch_pipelined(const Problem& p, cudaStream_t stream) {
  const Plan pl = plan(p);
  pl.kernel<<<mnk_grid(pl.q, kBM, kBN), kThreads, 0, stream>>>(to_args(pl.q));
  return cudaGetLastError();
}

}  // namespace

void register_cute_pipelined(Registry& r) {
  KernelInfo k;
  k.name = "cute_pipelined";
  k.family = "cute_pipelined";
  k.rung = 12;
  k.tile.bm = kBM;
  k.tile.bn = kBN;
  k.tile.bk = kBK;
  k.tile.wm = kWarpTileM;
  k.tile.wn = kWarpTileN;
  k.tile.tm = kThreadTileM;
  k.tile.tn = kThreadTileN;
  k.tile.threads = kThreads;
  k.tile.stages = kStages;
  k.tile.smem_bytes =
      static_cast<int>(sizeof(float) * (cosize_v<PaddedSmemLayout<kBM, kBK, kStages>> +
                                        cosize_v<PaddedSmemLayout<kBN, kBK, kStages>>));
  k.summary =
      "CuTe 128x128x8, 3-stage cp.async pipeline (16-byte when aligned, zero-fill at "
      "edges), register double-buffered fragments, 8x8 per thread";
  k.can_implement = can_implement_pipelined;
  k.launch = launch_pipelined;
  // The instance row-major A and B take when aligned (the default layouts).
  k.device_function =
      reinterpret_cast<const void*>(instance<GmemOrder::kScalarK, GmemOrder::kVectorMN>());
  r.push_back(std::move(k));
}

}  // namespace tilegemm::kernels
