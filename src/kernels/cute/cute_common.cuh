// What the CuTe kernels (rungs 10-12) share, written once:
//   - the problem in CuTe's GEMM convention, C(m,n) = sum_k A(m,k) * B(n,k), with strides (the
//     mirror image C^T = B^T * A^T, which lets one instantiation serve two layout mixes, and the
//     host checks that a kernel's 32-bit offsets and grid fit the problem are the SIMT ladder's
//     too: problem_views.hpp);
//   - the thread-level MMA of rungs 11 and 12 (256 threads, 8 x 8 FMA values each, read from
//     shared memory with 128-bit loads), the padded shared-memory layout and the thread
//     arrangements of the global-to-shared copies;
//   - the predicated epilogue, which never reads C when beta == 0.
// Included only by src/kernels/cute/*.cu, which CMake compiles when the CUTLASS headers exist.
#pragma once

#include <cute/tensor.hpp>

#include <cstdint>

#include "../common.cuh"
#include "../problem_views.hpp"

namespace tilegemm::kernels::cute_gemm {

// ---------------------------------------------------------------------------------------------
// The problem in (M,K) x (N,K) form
// ---------------------------------------------------------------------------------------------

// C(m,n) = alpha * sum_k A(m,k) * B(n,k) + beta * C(m,n). Both operands are indexed by (their
// row of the output, k), as in CuTe's tutorials: A is (M,K), B is (N,K), C is (M,N). Element
// (i, j) of a matrix sits at data[i * stride_0 + j * stride_1]; the strides carry the layout,
// so row- and column-major operands are views, never copies. 64-bit on the host.
struct MnkProblem {
  std::int64_t m, n, k;
  float alpha, beta;
  const float* a;
  std::int64_t a_dm, a_dk;  // A: (M,K)
  const float* b;
  std::int64_t b_dn, b_dk;  // B: (N,K); the library's k x n matrix B read as its transpose
  float* c;
  std::int64_t c_dm, c_dn;  // C: (M,N)
};

inline MnkProblem to_mnk(const Problem& p) {
  const Strides sa = strides_of(p.a.layout, p.a.ld);  // (row, col) of the m x k matrix A
  const Strides sb = strides_of(p.b.layout, p.b.ld);  // (row, col) of the k x n matrix B
  const Strides sc = strides_of(p.c.layout, p.c.ld);
  // clang-format off
  return MnkProblem{p.m, p.n, p.k, p.alpha, p.beta,
                    static_cast<const float*>(p.a.data), sa.row, sa.col,
                    static_cast<const float*>(p.b.data), sb.col, sb.row,
                    static_cast<float*>(p.c.data), sc.row, sc.col};
  // clang-format on
}

// The same, narrowed to the 32-bit integers the kernels index with. Only built from a problem
// that views::fits_int32 accepted.
struct MnkArgs {
  int m, n, k;
  float alpha, beta;
  const float* a;
  int a_dm, a_dk;
  const float* b;
  int b_dn, b_dk;
  float* c;
  int c_dm, c_dn;
  int raster_group;  // tile-rows per rasterisation group (block_tile_coord); 1: grid order
};

inline MnkArgs to_args(const MnkProblem& q, int raster_group = 1) {
  auto i32 = [](std::int64_t v) { return static_cast<int>(v); };
  // clang-format off
  return MnkArgs{i32(q.m), i32(q.n), i32(q.k), q.alpha, q.beta,
                 q.a, i32(q.a_dm), i32(q.a_dk),
                 q.b, i32(q.b_dn), i32(q.b_dk),
                 q.c, i32(q.c_dm), i32(q.c_dn), raster_group};
  // clang-format on
}

// An operand whose M (A) or N (B) mode has unit stride, d_mn, can be copied in 16-byte vectors
// of 4 floats along that mode when every vector starts 16-byte aligned (base pointer and leading
// dimension: views::aligned) and none straddles the matrix edge (extent a multiple of 4).
// `operand` is the library's view of it, d_mn and extent_mn its MnkProblem stride and extent.
inline bool vectorizable(const ConstMatrixRef& operand, std::int64_t d_mn, std::int64_t extent_mn) {
  return d_mn == 1 && extent_mn % 4 == 0 && views::aligned(operand, 16);
}

// ---------------------------------------------------------------------------------------------
// Device building blocks of the 128 x 128 x 8 kernels (rungs 11 and 12)
// ---------------------------------------------------------------------------------------------

// CuTe's vocabulary (Int, Shape, Layout, Tensor, _) reads as math. The using-declaration makes
// `Layout` CuTe's here, not the library's row/col enum tilegemm::Layout.
using namespace cute;  // NOLINT
using cute::Layout;

constexpr int kThreads = 256;  // 8 warps

// The thread-level MMA: UniversalFMA atoms (one FFMA, 1x1x1) tiled over 16 x 16 threads.
// Threads: 8 warps as 4 (M) x 2 (N), each warp 4 (M) x 8 (N) threads, so one warp's shared
// reads of a k column touch 4 distinct 16-byte A vectors and 8 distinct B vectors (64 and 128
// contiguous bytes: one wavefront each, the rest broadcast).
//   thread index = a + 32 b + 4 c + 128 d,  t_m = a + 4 b (0..15),  t_n = c + 8 d (0..15)
using MmaThreadLayout =
    Layout<Shape<Shape<_4, _4>, Shape<_8, _2>, _1>, Stride<Stride<_1, _32>, Stride<_4, _128>, _0>>;
// Values: the permutation sends the TiledMMA's logical index t + 16 j + 64 i (t = thread,
// j < 4, i < 2) to row 4 t + j + 64 i, so each thread owns rows {4t..4t+3, 64+4t..64+4t+3}
// (and the same columns of N): two runs of 4 contiguous floats per k, i.e. two LDS.128 per
// operand per k step instead of eight LDS.32. Eight threads of a warp then read 128
// contiguous bytes of B: no bank conflict.
// The same with VALUES values per thread (8 or 16): t + 16 j + 64 i -> 4 t + j + 64 i for
// i < VALUES / 4, i.e. VALUES / 4 runs of 4 contiguous floats, 64 apart: one LDS.128 each.
template <int VALUES>
using MmaValuePermutationT = Layout<Shape<_16, _4, Int<VALUES / 4>>, Stride<_4, _1, _64>>;
using MmaValuePermutation = MmaValuePermutationT<8>;  // (16,4,2):(4,1,64), 128 -> 128

// The TiledMMA with 8 x TN values per thread: a (128, 16 * TN) tile of C per 256 threads.
// TN = 8 is the 128 x 128 tile of rungs 11 and 12; TN = 16 the 128 x 256 tile (128
// accumulators a thread; 8 + 16 fragment values per k feed 128 FFMA instead of 8 + 8 for 64).
template <int TN>
using SimtMmaT =
    decltype(make_tiled_mma(UniversalFMA<float, float, float, float>{}, MmaThreadLayout{},
                            Tile<MmaValuePermutation, MmaValuePermutationT<TN>, _1>{}));
using SimtMma = SimtMmaT<8>;
constexpr int kMmaTileM = 128;  // rows of C the TiledMMA covers: 16 threads x 8 values
constexpr int kMmaTileN = 128;  // columns, for SimtMma (16 threads x 8 values)
constexpr int kWarpTileM = 32;  // rows of C one warp owns: 4 threads x 8 values
constexpr int kWarpTileN = 64;  // columns: 8 threads x 8 values
constexpr int kThreadTileM = 8;
constexpr int kThreadTileN = 8;

// Shared tile of one operand: (BX, BK, STAGES) -> float index, X-major (M or N contiguous, so
// the MMA reads 4 consecutive rows with one LDS.128), each k column padded by kSmemPad floats.
// Why the pad: the copy of a K-contiguous operand writes a warp's 4 rows x 8 k elements; without
// a pad the 8 k columns (BX = 128 floats apart) fall in the same bank (8-way conflict); with
// 4 floats of pad column k starts 4 k banks over, so the 32 stores hit 32 banks. 4 (not 1)
// keeps every column 16-byte aligned for the 16-byte cp.async and LDS.128. Cost: 4 / 128 = 3%
// more shared memory. (A XOR swizzle of row bits 2..4 with k would do the same at no cost;
// the pad is chosen because it reads plainly and the shared memory is not the limit here.)
constexpr int kSmemPad = 4;
template <int BX, int BK, int STAGES>
using PaddedSmemLayout = Layout<Shape<Int<BX>, Int<BK>, Int<STAGES>>,
                                Stride<_1, Int<BX + kSmemPad>, Int<(BX + kSmemPad) * BK>>>;

// How the threads of a block share the copy of one (BX, BK) operand tile from global memory,
// chosen by which mode of the operand is contiguous there:
enum class GmemOrder {
  kScalarK,   // K contiguous: 4-byte copies, a warp takes 4 rows x 8 consecutive k (4 x 32 B)
  kScalarMN,  // M/N contiguous, not aligned: 4-byte copies, a warp takes 32 consecutive rows
  kVectorMN,  // M/N contiguous and 16-byte aligned: 16-byte copies, a warp takes 128 rows
};

template <GmemOrder Order, class CopyAtom, int BX, int BK>
constexpr auto make_gmem_tiled_copy() {
  if constexpr (Order == GmemOrder::kScalarK) {
    static_assert(kThreads % BK == 0 && BX % (kThreads / BK) == 0,
                  "K-contiguous copy: the threads tile the block as (threads/BK) rows x BK");
    return make_tiled_copy(CopyAtom{},
                           Layout<Shape<Int<kThreads / BK>, Int<BK>>, Stride<Int<BK>, _1>>{},
                           Layout<Shape<_1, _1>>{});
  } else if constexpr (Order == GmemOrder::kScalarMN) {
    static_assert(BX % 32 == 0 && BK % (kThreads / 32) == 0,
                  "M/N-contiguous copy: a warp covers 32 rows of one k column");
    return make_tiled_copy(CopyAtom{}, Layout<Shape<_32, Int<kThreads / 32>>, Stride<_1, _32>>{},
                           Layout<Shape<_1, _1>>{});
  } else {
    constexpr int kVectorsPerColumn = BX / 4;
    static_assert(BX % 4 == 0 && kThreads % kVectorsPerColumn == 0 &&
                      BK % (kThreads / kVectorsPerColumn) == 0,
                  "16-byte copy: whole k columns of 4-float vectors per pass");
    return make_tiled_copy(CopyAtom{},
                           Layout<Shape<Int<kVectorsPerColumn>, Int<kThreads / kVectorsPerColumn>>,
                                  Stride<_1, Int<kVectorsPerColumn>>>{},
                           Layout<Shape<_4, _1>>{});
  }
}

// Global strides of an operand as the kernel sees them: a 16-byte-vector operand has a static
// unit stride along M/N (so CuTe can prove the 4 floats of a vector are contiguous); the others
// keep both strides dynamic.
template <GmemOrder Order>
CUTE_HOST_DEVICE auto operand_stride(int d_mn, int d_k) {
  if constexpr (Order == GmemOrder::kVectorMN) {
    return make_stride(_1{}, d_k);
  } else {
    return make_stride(d_mn, d_k);
  }
}

// (M tile, N tile) of this block. raster_group <= 1: the grid's own order (y: M tile, x: N
// tile). Otherwise the blocks, numbered in launch order (x fastest), walk groups of
// raster_group tile-rows column by column -- down the group's rows, then one tile-column
// right -- so the blocks in flight at one time share fewer, more reused A and B panels in L2.
// The last group may have fewer rows; every tile is still visited exactly once. The order is
// views::raster_tile's (the SIMT ladder's), computed here from the 2-D grid with 64-bit block
// numbers, since a grid of up to 65535 x INT_MAX tiles may hold more blocks than an int counts.
CUTE_DEVICE auto block_tile_coord(int raster_group) {
  if (raster_group <= 1) {
    return make_coord(static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.x));
  }
  const int tiles_m = static_cast<int>(gridDim.y);
  const std::int64_t tiles_n = gridDim.x;
  const std::int64_t linear = static_cast<std::int64_t>(blockIdx.y) * tiles_n + blockIdx.x;
  const std::int64_t per_group = raster_group * tiles_n;
  const int first_m = static_cast<int>(linear / per_group) * raster_group;
  const int rows = cute::min(raster_group, tiles_m - first_m);
  const int in_group = static_cast<int>(linear % per_group);
  return make_coord(first_m + in_group % rows, in_group / rows);
}

// C = alpha * acc + beta * C on this thread's accumulators that lie inside the matrix.
// tCcC holds each accumulator's (m, n) within the block tile, residue_mn the extent of the
// matrix measured from the tile's corner. beta == 0 never reads C (epilogue_store).
template <class Accumulators, class TensorC, class Coords, class Residue>
__device__ __forceinline__ void store_accumulators(const Accumulators& acc, TensorC&& tCgC,
                                                   const Coords& tCcC, const Residue& residue_mn,
                                                   float alpha, float beta) {
  CUTE_UNROLL
  for (int i = 0; i < size(acc); ++i) {
    if (elem_less(tCcC(i), residue_mn)) {
      epilogue_store(&tCgC(i), acc(i), alpha, beta);
    }
  }
}

}  // namespace tilegemm::kernels::cute_gemm
