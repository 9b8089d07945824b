// Rung 2: shared-memory tiling with a square tile, the tile size a template parameter
// (seeds: Day 2 `tiledGemm<TILE_SIZE>`, Day 5 `tiledMatmul`, the notebook's exercise 1).
//
// What it adds over `naive`: a block of T x T threads stages a T x T tile of A and of B in shared
// memory per step along K, and each element staged is used T times, so global traffic drops by
// the factor T (the notebook's `analyze_tiled_traffic`; `tilegemm analyze` prints it). Edge tiles
// are zero-padded, so any M, N, K works; two barriers per step: after the loads (the tile is
// complete) and after the products (nobody still reads the tile the next loads overwrite).
// Two shared-memory wavefronts per FFMA cap it at half the FFMA rate, whatever T is (the cap is
// worked out in docs/perf-notes.md).
//
// Measurements: docs/ladder.md (rung 2), docs/perf-notes.md (rungs 1-3).
#include "common.cuh"
#include "families.hpp"

namespace tilegemm::kernels {
namespace {

/// @tparam T  tile edge: the block is T x T threads and computes a T x T tile of C.
template <int T>
__global__ void __launch_bounds__(T* T) smem_tiled_kernel(GemmArgs g) {
  static_assert(T >= 1 && T * T <= 1024, "a T x T block must not exceed 1024 threads");
  __shared__ float As[T][T];  // As[r][kk] = A(block_row + r, t*T + kk)
  __shared__ float Bs[T][T];  // Bs[kk][c] = B(t*T + kk, block_col + c)

  const int tx = threadIdx.x;  // column within the tile: consecutive threads, consecutive columns
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;
  const int col = blockIdx.x * T + tx;

  float acc = 0.0f;
  for (int t = 0; t < g.k; t += T) {
    const int a_col = t + tx;
    const int b_row = t + ty;
    As[ty][tx] = (row < g.m && a_col < g.k) ? g.a[row * g.a_rs + a_col * g.a_cs] : 0.0f;
    Bs[ty][tx] = (b_row < g.k && col < g.n) ? g.b[b_row * g.b_rs + col * g.b_cs] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int kk = 0; kk < T; ++kk) {
      acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
    }
    __syncthreads();  // nobody reads the tiles the next iteration overwrites
  }
  if (row < g.m && col < g.n) {
    epilogue_store(g.c + row * g.c_rs + col * g.c_cs, acc, g.alpha, g.beta);
  }
}

template <int T>
cudaError_t launch_smem_tiled(const Problem& p, cudaStream_t stream) {
  smem_tiled_kernel<T><<<tile_grid(p, T, T), dim3(T, T), 0, stream>>>(make_args(p));
  return cudaGetLastError();
}

template <int T>
void add_instance(Registry& r) {
  KernelInfo k;
  k.name = "smem_tiled_t" + std::to_string(T);
  k.family = "smem_tiled";
  k.rung = 2;
  k.tile.bm = T;
  k.tile.bn = T;
  k.tile.bk = T;
  k.tile.tm = 1;
  k.tile.tn = 1;
  k.tile.threads = T * T;
  k.tile.smem_bytes = 2 * T * T * static_cast<int>(sizeof(float));
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // scalar loads and stores: any alignment
  k.summary = "square " + std::to_string(T) + "x" + std::to_string(T) +
              " shared-memory tiles, zero-padded edges, two barriers per K step";
  k.can_implement = [](const Problem& p) { return tile_grid_fits(p, T, T); };
  k.launch = launch_smem_tiled<T>;
  k.device_function = device_function_for(
      k.can_implement, [](const Problem&) { return kernel_address(&smem_tiled_kernel<T>); });
  r.push_back(std::move(k));
}

}  // namespace

void register_smem_tiled(Registry& r) {
  add_instance<8>(r);
  add_instance<16>(r);
  add_instance<32>(r);
}

}  // namespace tilegemm::kernels
