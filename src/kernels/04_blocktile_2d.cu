// Rung 4: 2-D block tiling with register thread tiles, in seed 002's configuration
// (BM = BN = 128, BK = 8, TM = TN = 8: (128/8) x (128/8) = 256 threads).
//
// What it adds over `smem_tiled_rect`: a thread computes a TM x TN tile of C, not one element.
// Idea: per k it reads TM values of A and TN of B from shared memory into registers and does
// TM * TN FMAs with them, so a shared-memory read feeds 8 FMAs instead of 1 and the block tile
// (128 x 128, 256 threads) makes every staged element serve 128 outputs instead of 16 or 32.
// It keeps the seed's plain layout: A's tile as A is (row by row), scalar loads, one stage.
// Known costs the next rungs remove: scalar 4-byte global loads (rung 5), A read along a
// column of As (TM scalar loads per k, rung 5), bank conflicts on Bs (rung 6).
//
// Measurements: docs/ladder.md (rung 4), docs/perf-notes.md (rung 4).
#include <string>

#include "common.cuh"
#include "families.hpp"

namespace tilegemm::kernels {
namespace {

/// @tparam BM  rows of C per block tile
/// @tparam BN  columns of C per block tile
/// @tparam BK  depth of the K step staged in shared memory
/// @tparam TM  rows of C per thread (a thread's register tile is TM x TN)
/// @tparam TN  columns of C per thread
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) blocktile_2d_kernel(GemmArgs g) {
  constexpr int kThreadsN = BN / TN;
  constexpr int kThreads = (BM / TM) * kThreadsN;
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must tile the block tile exactly");
  static_assert(kThreads <= 1024, "a block holds at most 1024 threads");
  static_assert((BM * BK) % kThreads == 0 && (BK * BN) % kThreads == 0,
                "every thread copies the same number of elements of each tile (no remainder loop)");
  static_assert(TM * TN <= 128, "the accumulators must stay in registers (no spills)");

  __shared__ float As[BM][BK];  // (BM, BK): As[r][kk] = A(m0 + r, k0 + kk), A's tile as A is
  __shared__ float Bs[BK][BN];  // (BK, BN): Bs[kk][c] = B(k0 + kk, n0 + c)

  const int tid = static_cast<int>(threadIdx.x);
  const int ty = tid / kThreadsN;  // thread-tile row in the block's (BM/TM) x (BN/TN) grid
  const int tx = tid % kThreadsN;
  const int m0 = static_cast<int>(blockIdx.y) * BM;
  const int n0 = static_cast<int>(blockIdx.x) * BN;
  const int rows_left = g.m - m0;  // rows of C from the tile's corner to the matrix edge
  const int cols_left = g.n - n0;
  const float* a_tile = g.a + m0 * g.a_rs;  // 64-bit offsets: int * int64
  const float* b_tile = g.b + n0 * g.b_cs;

  float acc[TM][TN] = {};                  // (TM, TN): C(m0 + ty*TM + i, n0 + tx*TN + j)
  const int k_tiles = (g.k - 1) / BK + 1;  // k >= 1; written so that it cannot overflow
  for (int t = 0; t < k_tiles; ++t) {
    const int k0 = t * BK;
    const int k_left = g.k - k0;
    // Consecutive threads take consecutive k of an A row and consecutive n of a B row, so a
    // row-major operand is read in whole 32-byte sectors; other layouts are correct, slower.
#pragma unroll
    for (int i = 0; i < BM * BK / kThreads; ++i) {
      const int e = tid + i * kThreads;
      const int r = e / BK;
      const int kk = e % BK;
      As[r][kk] = (r < rows_left && kk < k_left) ? a_tile[r * g.a_rs + (k0 + kk) * g.a_cs] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < BK * BN / kThreads; ++i) {
      const int e = tid + i * kThreads;
      const int kk = e / BN;
      const int c = e % BN;
      Bs[kk][c] = (kk < k_left && c < cols_left) ? b_tile[(k0 + kk) * g.b_rs + c * g.b_cs] : 0.0f;
    }
    __syncthreads();  // the tiles are complete

#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a_frag[TM];  // (TM): A(ty*TM + i, kk), a column of As: TM scalar loads
      float b_frag[TN];  // (TN): B(kk, tx*TN + j), a row segment of Bs
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = As[ty * TM + i][kk];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = Bs[kk][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
      }
    }
    __syncthreads();  // nobody still reads the tiles the next step overwrites
  }

  float* c_tile = g.c + m0 * g.c_rs + n0 * g.c_cs;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = ty * TM + i;
    if (row >= rows_left) break;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = tx * TN + j;
      if (col < cols_left) {
        epilogue_store(c_tile + row * g.c_rs + col * g.c_cs, acc[i][j], g.alpha, g.beta);
      }
    }
  }
}

template <int BM, int BN, int BK, int TM, int TN>
cudaError_t launch_blocktile_2d(const Problem& p, cudaStream_t stream) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  blocktile_2d_kernel<BM, BN, BK, TM, TN>
      <<<tile_grid(p, BM, BN), kThreads, 0, stream>>>(make_args(p));
  return cudaGetLastError();
}

template <int BM, int BN, int BK, int TM, int TN>
void add_instance(Registry& r) {
  KernelInfo k;
  k.name = "blocktile_" + std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) +
           "_" + std::to_string(TM) + "x" + std::to_string(TN);
  k.family = "blocktile_2d";
  k.rung = 4;
  k.tile.bm = BM;
  k.tile.bn = BN;
  k.tile.bk = BK;
  k.tile.tm = TM;
  k.tile.tn = TN;
  k.tile.threads = (BM / TM) * (BN / TN);
  k.tile.smem_bytes = (BM * BK + BK * BN) * static_cast<int>(sizeof(float));
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // scalar loads and stores: any alignment
  k.summary = "block tile " + std::to_string(BM) + "x" + std::to_string(BN) + "x" +
              std::to_string(BK) + ", " + std::to_string(TM) + "x" + std::to_string(TN) +
              " register tile per thread, scalar loads, any layout";
  k.can_implement = [](const Problem& p) { return tile_grid_fits(p, BM, BN); };
  k.launch = launch_blocktile_2d<BM, BN, BK, TM, TN>;
  k.device_function = device_function_for(k.can_implement, [](const Problem&) {
    return kernel_address(&blocktile_2d_kernel<BM, BN, BK, TM, TN>);
  });
  r.push_back(std::move(k));
}

}  // namespace

void register_blocktile_2d(Registry& r) {
  add_instance<128, 128, 8, 8, 8>(r);  // seed 002's example configuration
}

}  // namespace tilegemm::kernels
