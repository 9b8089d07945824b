// Rung 3: rectangular shared-memory tiles (the notebook's exercise 2, `matmul_tiled_rect`):
// a TILE_M x TILE_N block tile with its own depth TILE_K along K.
//
// What it adds over `smem_tiled`: the three tile edges are independent, so a block can be taller
// than wide (more reuse of B per staged element) and step deeper along K (fewer barriers per
// FLOP) while the thread count stays TILE_M * TILE_N. Each thread still computes one C element;
// loads loop when TILE_K exceeds the block's width or height. TILE_K is also the number of FFMAs
// a thread does between two barriers.
//
// Measurements: docs/ladder.md (rung 3), docs/perf-notes.md (rungs 1-3).
#include "common.cuh"
#include "families.hpp"

namespace tilegemm::kernels {
namespace {

/// @tparam TILE_M  rows of C per block; the block has TILE_M rows of threads (threadIdx.y)
/// @tparam TILE_N  columns of C per block; the block has TILE_N columns of threads (threadIdx.x)
/// @tparam TILE_K  depth of one K step staged in shared memory
template <int TILE_M, int TILE_N, int TILE_K>
__global__ void __launch_bounds__(TILE_M* TILE_N) smem_tiled_rect_kernel(GemmArgs g) {
  static_assert(TILE_M * TILE_N <= 1024, "one thread per C element: at most 1024 per block");
  static_assert(TILE_K >= 1, "a K step stages at least one column of A");
  __shared__ float As[TILE_M][TILE_K];  // As[r][kk] = A(block_row + r, t + kk)
  __shared__ float Bs[TILE_K][TILE_N];  // Bs[kk][c] = B(t + kk, block_col + c)

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE_M + ty;
  const int col = blockIdx.x * TILE_N + tx;

  float acc = 0.0f;
  for (int t = 0; t < g.k; t += TILE_K) {
    for (int i = tx; i < TILE_K; i += TILE_N) {
      const int a_col = t + i;
      As[ty][i] = (row < g.m && a_col < g.k) ? g.a[row * g.a_rs + a_col * g.a_cs] : 0.0f;
    }
    for (int i = ty; i < TILE_K; i += TILE_M) {
      const int b_row = t + i;
      Bs[i][tx] = (b_row < g.k && col < g.n) ? g.b[b_row * g.b_rs + col * g.b_cs] : 0.0f;
    }
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int kk = 0; kk < TILE_K; ++kk) {
      acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
    }
    __syncthreads();  // nobody reads the tiles the next iteration overwrites
  }
  if (row < g.m && col < g.n) {
    epilogue_store(g.c + row * g.c_rs + col * g.c_cs, acc, g.alpha, g.beta);
  }
}

template <int TILE_M, int TILE_N, int TILE_K>
cudaError_t launch_rect(const Problem& p, cudaStream_t stream) {
  smem_tiled_rect_kernel<TILE_M, TILE_N, TILE_K>
      <<<tile_grid(p, TILE_M, TILE_N), dim3(TILE_N, TILE_M), 0, stream>>>(make_args(p));
  return cudaGetLastError();
}

template <int TILE_M, int TILE_N, int TILE_K>
void add_instance(Registry& r) {
  const std::string shape =
      std::to_string(TILE_M) + "x" + std::to_string(TILE_N) + "x" + std::to_string(TILE_K);
  KernelInfo k;
  k.name = "smem_tiled_rect_" + shape;
  k.family = "smem_tiled_rect";
  k.rung = 3;
  k.tile.bm = TILE_M;
  k.tile.bn = TILE_N;
  k.tile.bk = TILE_K;
  k.tile.tm = 1;
  k.tile.tn = 1;
  k.tile.threads = TILE_M * TILE_N;
  k.tile.smem_bytes = (TILE_M * TILE_K + TILE_K * TILE_N) * static_cast<int>(sizeof(float));
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // scalar loads and stores: any alignment
  k.summary = "rectangular " + shape + " (M x N x K) shared-memory tiles, one C element a thread";
  k.can_implement = [](const Problem& p) { return tile_grid_fits(p, TILE_M, TILE_N); };
  k.launch = launch_rect<TILE_M, TILE_N, TILE_K>;
  k.device_function = device_function_for(k.can_implement, [](const Problem&) {
    return kernel_address(&smem_tiled_rect_kernel<TILE_M, TILE_N, TILE_K>);
  });
  r.push_back(std::move(k));
}

}  // namespace

void register_smem_tiled_rect(Registry& r) {
  add_instance<32, 16, 16>(r);  // the notebook's exercise 2
  add_instance<16, 32, 32>(r);  // wide and deep: half the barriers per FLOP of 32x16x16
  add_instance<32, 32, 8>(r);   // full 1024-thread block, shallow K step
}

}  // namespace tilegemm::kernels
