// Rung 7: warp tiling: block tile -> warp tiles -> thread tiles (BM x BN -> WM x WN -> TM x TN).
//
// What it adds over `bankfree`: the block's C tile is split among warps first, each warp owning
// a WM x WN rectangle, and only inside it among lanes (a (WM/TM) x (WN/TN) lane grid, 4 x 4
// sub-tiles WM/(TM/4) rows and WN/(TN/4) columns apart). Idea: what a warp reads from shared
// memory per k is WM + WN floats, not a whole row of the block tile, so each fragment read is one
// 128-byte wavefront (8 lanes x 16 bytes or fewer, broadcast to the rest) instead of two, and a
// warp's data stays within a small footprint (the SGEMM_CUDA warptiling idea, as a @tparam block).
// Per k and warp, 64 x 32 warp tiles: 2 + 2 LDS.128 of 1 wavefront each (rung 6: 2 x 1 + 2 x 2).
// Everything else is rung 6: 16-byte loads staged through registers, padded k-major tiles.
//
// Measurements: docs/ladder.md (rung 7), docs/perf-notes.md (rung 7).
#include <string>

#include "common.cuh"
#include "families.hpp"
#include "ladder.cuh"

namespace tilegemm::kernels {
namespace {

using ladder::StagedCopy;
using ladder::WarpTileMap;

constexpr int kPad = 4;  // floats added to each k-row of the shared tiles (rung 6)

/// @tparam BM   rows of C per block tile
/// @tparam BN   columns of C per block tile
/// @tparam BK   depth of the K step staged in shared memory
/// @tparam WM   rows of C per warp tile; the block has (BM/WM) x (BN/WN) warps
/// @tparam WN   columns of C per warp tile
/// @tparam TM   rows of C per thread; a warp's lanes form a (WM/TM) x (WN/TN) grid of 32
/// @tparam TN   columns of C per thread; a thread tile is (TM/4) x (TN/4) sub-tiles of 4 x 4
/// @tparam A_K  A is k-contiguous (row-major); otherwise m-contiguous (col-major)
/// @tparam B_K  B is k-contiguous (col-major); otherwise n-contiguous (row-major)
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool A_K, bool B_K>
__global__ void __launch_bounds__(WarpTileMap<BM, BN, WM, WN, TM, TN>::kThreads, 2)
    warptile_kernel(GemmArgs g) {
  using Map = WarpTileMap<BM, BN, WM, WN, TM, TN>;
  constexpr int kThreads = Map::kThreads;
  using ACopy = StagedCopy<BM, BK, kThreads, A_K, BM + kPad>;
  using BCopy = StagedCopy<BN, BK, kThreads, B_K, BN + kPad>;
  static_assert(Map::valid(),
                "warp tiles must tile the block tile, 32 lanes of 4x4 sub-tiles each");
  static_assert(TM * TN <= 64, "64 accumulators + fragments fit the 128 registers of 2 blocks/SM");
  static_assert(BM % 32 == 0 && BN % 32 == 0 && BK == 8,
                "padding by 4 separates the transposing stores of k and k+4 only when rows are a "
                "multiple of 32 floats and a warp stores two groups of 4 k (BK == 8)");

  __shared__ __align__(
      16) float As[BK][BM + kPad];  // (BK, BM + pad): As[kk][r] = A(m0 + r, k0 + kk)
  __shared__ __align__(
      16) float Bs[BK][BN + kPad];  // (BK, BN + pad): Bs[kk][c] = B(k0 + kk, n0 + c)

  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * BM;
  const int n0 = static_cast<int>(blockIdx.x) * BN;
  const int rows_left = g.m - m0;
  const int cols_left = g.n - n0;
  const std::int64_t lda = A_K ? g.a_rs : g.a_cs;
  const std::int64_t ldb = B_K ? g.b_cs : g.b_rs;
  const float* a_tile = g.a + m0 * g.a_rs;
  const float* b_tile = g.b + n0 * g.b_cs;
  const int row = Map::row(tid, 0);  // first row of the thread's first sub-tile (block-relative)
  const int col = Map::col(tid, 0);

  // (TM, TN): acc[i][j] = C(m0 + row + (i/4)*kSubStepM + i%4, n0 + col + (j/4)*kSubStepN + j%4)
  float acc[TM][TN] = {};
  const int k_tiles = (g.k - 1) / BK + 1;
  for (int t = 0; t < k_tiles; ++t) {
    const int k0 = t * BK;
    const int k_left = g.k - k0;
    ACopy a_copy;
    BCopy b_copy;
    a_copy.load(a_tile + k0 * g.a_cs, lda, rows_left, k_left, tid);
    b_copy.load(b_tile + k0 * g.b_rs, ldb, cols_left, k_left, tid);
    a_copy.store(&As[0][0], tid);
    b_copy.store(&Bs[0][0], tid);
    __syncthreads();  // the tiles are complete

#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a_frag[TM];  // (TM): the thread's rows of A at k0 + kk, TM/4 LDS.128
      float b_frag[TN];  // (TN): the thread's columns of B at k0 + kk, TN/4 LDS.128
      ladder::load_fragment<Map::kSubM, Map::kSubStepM>(a_frag, &As[kk][row]);
      ladder::load_fragment<Map::kSubN, Map::kSubStepN>(b_frag, &Bs[kk][col]);
      ladder::outer_product(acc, a_frag, b_frag);
    }
    __syncthreads();  // nobody still reads the tiles the next step overwrites
  }

  float* c_tile = g.c + m0 * g.c_rs + n0 * g.c_cs;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int s = 0; s < Map::kSubN; ++s) {
      ladder::store_row<4>(g, c_tile, row + (i / 4) * Map::kSubStepM + i % 4,
                           col + s * Map::kSubStepN, rows_left, cols_left, &acc[i][4 * s]);
    }
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
cudaError_t launch_warptile(const Problem& p, cudaStream_t stream) {
  constexpr int kThreads = WarpTileMap<BM, BN, WM, WN, TM, TN>::kThreads;
  const GemmArgs args = make_args(p);
  const dim3 grid = tile_grid(p, BM, BN);
  return ladder::dispatch_layouts(p, [&](auto a_k, auto b_k) {
    warptile_kernel<BM, BN, BK, WM, WN, TM, TN, decltype(a_k)::value, decltype(b_k)::value>
        <<<grid, kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

// The layout instance launch_warptile runs.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
const void* warptile_function(const Problem& p) {
  return ladder::dispatch_layouts(p, [](auto a_k, auto b_k) {
    return kernel_address(
        &warptile_kernel<BM, BN, BK, WM, WN, TM, TN, decltype(a_k)::value, decltype(b_k)::value>);
  });
}

// 16-byte loads of A and B need their base and leading dimension aligned (C is stored by
// element, any alignment).
template <int BM, int BN>
bool can_implement_warptile(const Problem& p) {
  return tile_grid_fits(p, BM, BN) && views::aligned(p.a, 16) && views::aligned(p.b, 16);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void add_instance(Registry& r) {
  const std::string config = std::to_string(BM) + "x" + std::to_string(BN) + "x" +
                             std::to_string(BK) + "_w" + std::to_string(WM) + "x" +
                             std::to_string(WN) + "_t" + std::to_string(TM) + "x" +
                             std::to_string(TN);
  KernelInfo k;
  k.name = "warptile_" + config;
  k.family = "warptile";
  k.rung = 7;
  k.tile.bm = BM;
  k.tile.bn = BN;
  k.tile.bk = BK;
  k.tile.wm = WM;
  k.tile.wn = WN;
  k.tile.tm = TM;
  k.tile.tn = TN;
  k.tile.threads = WarpTileMap<BM, BN, WM, WN, TM, TN>::kThreads;
  k.tile.smem_bytes = (BM + BN + 2 * kPad) * BK * static_cast<int>(sizeof(float));
  k.desc = simt_f32_desc(4, 4, 1, kMinBuiltCc);  // 16-byte loads of A and B
  k.summary = "warp tiling, block/warp/thread tiles " + config +
              ", 4x4 sub-tiles, "
              "padded k-major tiles; needs 16-byte-aligned operands";
  k.can_implement = can_implement_warptile<BM, BN>;
  k.launch = launch_warptile<BM, BN, BK, WM, WN, TM, TN>;
  k.device_function = device_function_for(can_implement_warptile<BM, BN>,
                                          warptile_function<BM, BN, BK, WM, WN, TM, TN>);
  r.push_back(std::move(k));
}

}  // namespace

void register_warptile(Registry& r) {
  add_instance<128, 128, 8, 64, 32, 8, 8>(r);  // 2 x 4 warps; A reads 8 lanes wide, B 4
  add_instance<128, 128, 8, 32, 64, 8, 8>(r);  // 4 x 2 warps; A reads 4 lanes wide, B 8
}

}  // namespace tilegemm::kernels
