// Rung 6: shared-memory bank conflicts removed (padding plus 4-wide thread strips).
//
// What it adds over `vectorized`: the two bank conflicts rung 5 keeps on purpose are gone.
// Idea: pad each k-row of the shared tiles by 4 floats, and split a thread's 8 x 8 tile of C
// into 4 x 4 sub-tiles 64 rows/columns apart, so that the lanes of a warp read one contiguous run.
//  - transposing stores (A row-major, B col-major): a warp stores x = x0..x0+15 for k and k+4.
//    With rows of 132 floats instead of 128, row k+4 starts 4 * 132 = 528 words later, 16 banks
//    over: the two halves of the warp now fill disjoint banks, 32 distinct banks per store.
//  - fragment reads: a half-warp reads Bs[k][tx*4 .. tx*4+3] for tx = 0..15: 16 vectors side by
//    side, 256 contiguous bytes, the 2 wavefronts they need and no more (rung 5: 4). A is read
//    at 2 addresses per warp (broadcast), as before.
// The padding keeps every row 16-byte aligned (132 * 4 = 528 bytes), so LDS.128/STS.128 remain.
// tests/cpu/ladder_maps_test.cpp counts the wavefronts of both rungs' accesses on the CPU; the
// lead measures l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum on the GPU.
//
// Measurements: docs/ladder.md (rung 6), docs/perf-notes.md (rung 6).
#include <string>

#include "common.cuh"
#include "families.hpp"
#include "ladder.cuh"

namespace tilegemm::kernels {
namespace {

using ladder::BlockThreadMap;
using ladder::StagedCopy;

constexpr int kBM = 128;  // block tile: seed 002's configuration, as rung 4
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kTM = 8;  // thread tile: 2 x 2 sub-tiles of 4 x 4, kBM/2 and kBN/2 apart
constexpr int kTN = 8;
constexpr int kSub = 4;  // sub-tile edge: one 16-byte vector of A or B per sub-tile and k
constexpr int kPad = 4;  // floats added to each k-row of the shared tiles
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);

/// @tparam A_K  A is k-contiguous (row-major); otherwise m-contiguous (col-major)
/// @tparam B_K  B is k-contiguous (col-major); otherwise n-contiguous (row-major)
template <bool A_K, bool B_K>
__global__ void __launch_bounds__(kThreads) bankfree_kernel(GemmArgs g) {
  using Map = BlockThreadMap<kBM, kBN, kTM, kTN, kSub, kSub>;  // 2 x 2 strips of 4 x 4
  using ACopy = StagedCopy<kBM, kBK, kThreads, A_K, kBM + kPad>;
  using BCopy = StagedCopy<kBN, kBK, kThreads, B_K, kBN + kPad>;
  static_assert(Map::valid() && Map::kThreads == kThreads, "thread tiles must tile the block tile");
  static_assert(kPad % 4 == 0, "padded rows must stay 16-byte aligned for LDS.128/STS.128");
  static_assert(((kBM + kPad) * 4) % 32 == 16 && ((kBN + kPad) * 4) % 32 == 16,
                "row k+4 must start 16 banks over row k: that is what separates the two halves "
                "of a warp's transposing store");
  constexpr int kStepM = kBM / Map::kSubM;  // rows between a thread's two sub-tiles
  constexpr int kStepN = kBN / Map::kSubN;

  // (BK, BM + pad): As[kk][r] = A(m0 + r, k0 + kk), k-major; the pad columns are never read
  __shared__ __align__(16) float As[kBK][kBM + kPad];
  // (BK, BN + pad): Bs[kk][c] = B(k0 + kk, n0 + c)
  __shared__ __align__(16) float Bs[kBK][kBN + kPad];

  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * kBM;
  const int n0 = static_cast<int>(blockIdx.x) * kBN;
  const int rows_left = g.m - m0;
  const int cols_left = g.n - n0;
  // Operand tiles at k = 0; element (x, k) at tile[x * ld + k] (k-contiguous) or tile[k * ld + x].
  const std::int64_t lda = A_K ? g.a_rs : g.a_cs;
  const std::int64_t ldb = B_K ? g.b_cs : g.b_rs;
  const float* a_tile = g.a + m0 * g.a_rs;
  const float* b_tile = g.b + n0 * g.b_cs;
  const int row = Map::row(tid, 0);  // first row of the thread's first 4 x 4 sub-tile
  const int col = Map::col(tid, 0);

  // (TM, TN): acc[i][j] = C(m0 + row + (i/4)*kStepM + i%4, n0 + col + (j/4)*kStepN + j%4)
  float acc[kTM][kTN] = {};
  const int k_tiles = (g.k - 1) / kBK + 1;
  for (int t = 0; t < k_tiles; ++t) {
    const int k0 = t * kBK;
    const int k_left = g.k - k0;
    ACopy a_copy;
    BCopy b_copy;
    a_copy.load(a_tile + k0 * g.a_cs, lda, rows_left, k_left, tid);
    b_copy.load(b_tile + k0 * g.b_rs, ldb, cols_left, k_left, tid);
    a_copy.store(&As[0][0], tid);
    b_copy.store(&Bs[0][0], tid);
    __syncthreads();  // the tiles are complete

#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float a_frag[kTM];  // (TM): the thread's rows of A at k0 + kk, two LDS.128 kStepM apart
      float b_frag[kTN];  // (TN): the thread's columns of B at k0 + kk, two LDS.128 kStepN apart
      ladder::load_fragment<Map::kSubM, kStepM>(a_frag, &As[kk][row]);
      ladder::load_fragment<Map::kSubN, kStepN>(b_frag, &Bs[kk][col]);
      ladder::outer_product(acc, a_frag, b_frag);
    }
    __syncthreads();  // nobody still reads the tiles the next step overwrites
  }

  float* c_tile = g.c + m0 * g.c_rs + n0 * g.c_cs;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int s = 0; s < Map::kSubN; ++s) {
      ladder::store_row<kSub>(g, c_tile, row + (i / kSub) * kStepM + i % kSub, col + s * kStepN,
                              rows_left, cols_left, &acc[i][s * kSub]);
    }
  }
}

// 16-byte loads of A and B need their base and leading dimension aligned (C is stored by
// element, any alignment).
bool can_implement_bankfree(const Problem& p) {
  return tile_grid_fits(p, kBM, kBN) && views::aligned(p.a, 16) && views::aligned(p.b, 16);
}

cudaError_t launch_bankfree(const Problem& p, cudaStream_t stream) {
  const GemmArgs args = make_args(p);
  const dim3 grid = tile_grid(p, kBM, kBN);
  return ladder::dispatch_layouts(p, [&](auto a_k, auto b_k) {
    bankfree_kernel<decltype(a_k)::value, decltype(b_k)::value>
        <<<grid, kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

// The layout instance launch_bankfree runs.
const void* bankfree_function(const Problem& p) {
  return ladder::dispatch_layouts(p, [](auto a_k, auto b_k) {
    return kernel_address(&bankfree_kernel<decltype(a_k)::value, decltype(b_k)::value>);
  });
}

}  // namespace

void register_bankfree(Registry& r) {
  KernelInfo k;
  k.name = "bankfree_128x128x8_8x8";
  k.family = "bankfree";
  k.rung = 6;
  k.tile.bm = kBM;
  k.tile.bn = kBN;
  k.tile.bk = kBK;
  k.tile.tm = kTM;
  k.tile.tn = kTN;
  k.tile.threads = kThreads;
  k.tile.smem_bytes = (kBM + kBN + 2 * kPad) * kBK * static_cast<int>(sizeof(float));
  k.desc = simt_f32_desc(4, 4, 1, kMinBuiltCc);  // 16-byte loads of A and B
  k.summary =
      "rung 5 without shared-memory bank conflicts: rows padded by 4 floats, thread tiles "
      "as 4x4 strips; needs 16-byte-aligned operands";
  k.can_implement = can_implement_bankfree;
  k.launch = launch_bankfree;
  k.device_function = device_function_for(can_implement_bankfree, bankfree_function);
  r.push_back(std::move(k));
}

}  // namespace tilegemm::kernels
