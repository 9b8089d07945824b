// Rung 5: vectorised 16-byte global loads, A stored k-major (transposed) in shared memory.
//
// What it adds over `blocktile_2d`: the operand tiles come in as 16-byte vectors (LDG.E.128,
// a quarter of the load instructions) and both shared tiles are k-major, As[k][m] and Bs[k][n],
// so at one k a thread's 8 values of A and 8 of B are each two 16-byte shared loads (LDS.128).
// Idea: move four floats per instruction at every level; transpose A once when staging it, not
// at every read. The layouts become template parameters: the k-contiguous operands (A row-major,
// B col-major) are transposed on the way to shared memory, the others are stored as they come.
//
// Left in on purpose (rung 6 removes them; ncu metric
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum):
//  - the transposing stores: a warp stores column x of As for 16 consecutive x and 2 groups of
//    4 k. Rows of As are 128 floats long, a multiple of the 32 banks, so As[k][x] and As[k+4][x]
//    share a bank: every store instruction of the warp is a 2-way conflict.
//  - the fragment reads of Bs: a half-warp reads Bs[k][tx*8 .. tx*8+3] for tx = 0..15, 16
//    vectors 32 bytes apart, which land on 4 bank groups 4 deep: 4 wavefronts where the 256
//    bytes need 2. (The second half-warp reads the same addresses: a broadcast, no cost.)
//
// Measurements: docs/ladder.md (rung 5), docs/perf-notes.md (rung 5).
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
constexpr int kTM = 8;  // thread tile, one contiguous 8 x 8 block of C
constexpr int kTN = 8;
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);

/// @tparam A_K  A is k-contiguous (row-major); otherwise m-contiguous (col-major)
/// @tparam B_K  B is k-contiguous (col-major); otherwise n-contiguous (row-major)
template <bool A_K, bool B_K>
__global__ void __launch_bounds__(kThreads) vectorized_kernel(GemmArgs g) {
  using Map = BlockThreadMap<kBM, kBN, kTM, kTN, kTM, kTN>;  // one 8 x 8 sub-tile per thread
  using ACopy = StagedCopy<kBM, kBK, kThreads, A_K, kBM>;    // no padding: see the header
  using BCopy = StagedCopy<kBN, kBK, kThreads, B_K, kBN>;
  static_assert(Map::valid() && Map::kThreads == kThreads, "thread tiles must tile the block tile");
  static_assert(kTM % 4 == 0 && kTN % 4 == 0, "fragments are read as 16-byte vectors");

  __shared__ __align__(16) float As[kBK][kBM];  // (BK, BM): As[kk][r] = A(m0 + r, k0 + kk), k-major
  __shared__ __align__(16) float Bs[kBK][kBN];  // (BK, BN): Bs[kk][c] = B(k0 + kk, n0 + c)

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
  const int row = Map::row(tid, 0);  // the thread's 8 x 8 tile of C starts here
  const int col = Map::col(tid, 0);

  float acc[kTM][kTN] = {};  // (TM, TN): C(m0 + row + i, n0 + col + j)
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
      float a_frag[kTM];  // (TM): A(m0 + row + i, k0 + kk), two LDS.128 from one row of As
      float b_frag[kTN];  // (TN): B(k0 + kk, n0 + col + j), two LDS.128 from one row of Bs
      ladder::load_fragment<kTM / 4, 4>(a_frag, &As[kk][row]);
      ladder::load_fragment<kTN / 4, 4>(b_frag, &Bs[kk][col]);
      ladder::outer_product(acc, a_frag, b_frag);
    }
    __syncthreads();  // nobody still reads the tiles the next step overwrites
  }

  float* c_tile = g.c + m0 * g.c_rs + n0 * g.c_cs;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    ladder::store_row<kTN>(g, c_tile, row + i, col, rows_left, cols_left, acc[i]);
  }
}

// 16-byte loads of A and B need their base and leading dimension aligned (C is stored by
// element, any alignment).
bool can_implement_vectorized(const Problem& p) {
  return tile_grid_fits(p, kBM, kBN) && views::aligned(p.a, 16) && views::aligned(p.b, 16);
}

cudaError_t launch_vectorized(const Problem& p, cudaStream_t stream) {
  const GemmArgs args = make_args(p);
  const dim3 grid = tile_grid(p, kBM, kBN);
  return ladder::dispatch_layouts(p, [&](auto a_k, auto b_k) {
    vectorized_kernel<decltype(a_k)::value, decltype(b_k)::value>
        <<<grid, kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

// The layout instance launch_vectorized runs.
const void* vectorized_function(const Problem& p) {
  return ladder::dispatch_layouts(p, [](auto a_k, auto b_k) {
    return kernel_address(&vectorized_kernel<decltype(a_k)::value, decltype(b_k)::value>);
  });
}

}  // namespace

void register_vectorized(Registry& r) {
  KernelInfo k;
  k.name = "vectorized_128x128x8_8x8";
  k.family = "vectorized";
  k.rung = 5;
  k.tile.bm = kBM;
  k.tile.bn = kBN;
  k.tile.bk = kBK;
  k.tile.tm = kTM;
  k.tile.tn = kTN;
  k.tile.threads = kThreads;
  k.tile.smem_bytes = (kBM + kBN) * kBK * static_cast<int>(sizeof(float));
  k.desc = simt_f32_desc(4, 4, 1, kMinBuiltCc);  // 16-byte loads of A and B
  k.summary =
      "rung 4 with 16-byte global loads and k-major shared tiles read as LDS.128; "
      "layouts as template parameters; needs 16-byte-aligned operands";
  k.can_implement = can_implement_vectorized;
  k.launch = launch_vectorized;
  k.device_function = device_function_for(can_implement_vectorized, vectorized_function);
  r.push_back(std::move(k));
}

}  // namespace tilegemm::kernels
