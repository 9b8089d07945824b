// Rung 1: naive. One thread per element of C, dot product straight from global memory
// (the seeds' Day 5 `naiveMatmul`, generalised to M x N x K, alpha/beta and any layout).
//
// Why it is slow: every thread reads a full row of A and a full column of B, so the kernel
// moves 2*M*N*K*4 bytes through the memory system for 2*M*N*K FLOPs: 0.25 FLOP/byte.
// Consecutive threads (x) take consecutive columns, so B and C accesses are coalesced for
// row-major operands and A is a broadcast. Two loads per FFMA: the load path, not DRAM, is
// what bounds it.
//
// 16-bit A and B (bf16, f16, to the same type or fp32 C) run the same loop on fp32 values of the
// elements; launch-bound tiny products of a short K have little else to do (docs/perf-notes.md,
// "Rung 1 in 16-bit types").
//
// Measurements: docs/ladder.md (rung 1), docs/perf-notes.md (rungs 1-3).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "common.cuh"
#include "families.hpp"
#include "tensor_common.cuh"

namespace tilegemm::kernels {
namespace {

constexpr int kBlockX = 32;  // columns of C per block: one warp spans 32 consecutive columns
constexpr int kBlockY = 8;   // rows of C per block

__global__ void __launch_bounds__(kBlockX* kBlockY) naive_kernel(GemmArgs g) {
  const int row = blockIdx.y * kBlockY + threadIdx.y;
  const int col = blockIdx.x * kBlockX + threadIdx.x;
  if (row >= g.m || col >= g.n) return;
  const float* a = g.a + row * g.a_rs;
  const float* b = g.b + col * g.b_cs;
  float acc = 0.0f;
  for (int kk = 0; kk < g.k; ++kk) {
    acc = fmaf(a[kk * g.a_cs], b[kk * g.b_rs], acc);
  }
  epilogue_store(g.c + row * g.c_rs + col * g.c_cs, acc, g.alpha, g.beta);
}

// The same with A and B of element type E and C of CT (GemmArgs' pointers carry the problem's
// own element types).
template <class E, class CT>
__global__ void __launch_bounds__(kBlockX* kBlockY) naive_typed_kernel(GemmArgs g) {
  const int row = blockIdx.y * kBlockY + threadIdx.y;
  const int col = blockIdx.x * kBlockX + threadIdx.x;
  if (row >= g.m || col >= g.n) return;
  const E* a = reinterpret_cast<const E*>(g.a) + row * g.a_rs;
  const E* b = reinterpret_cast<const E*>(g.b) + col * g.b_cs;
  float acc = 0.0f;
  for (int kk = 0; kk < g.k; ++kk) {
    acc = fmaf(OutC<E>::load1(a + kk * g.a_cs), OutC<E>::load1(b + kk * g.b_rs), acc);
  }
  store_c_one(reinterpret_cast<CT*>(g.c) + row * g.c_rs + col * g.c_cs, acc, g.alpha, g.beta);
}

// The kernel of a problem's types: rung 1's fp32 kernel for fp32 and tf32 (computed in fp32).
const void* naive_function(const Problem& p) {
  return with_types(p.types(), [](auto e, auto ct) -> const void* {
    using E = typename decltype(e)::type;
    using CT = typename decltype(ct)::type;
    if constexpr (std::is_same_v<E, float>) {
      return kernel_address(&naive_kernel);
    } else {
      return kernel_address(&naive_typed_kernel<E, CT>);
    }
  });
}

cudaError_t launch_naive(const Problem& p, cudaStream_t stream) {
  const dim3 grid = tile_grid(p, kBlockY, kBlockX);
  const dim3 block(kBlockX, kBlockY);
  with_types(p.types(), [&](auto e, auto ct) {
    using E = typename decltype(e)::type;
    using CT = typename decltype(ct)::type;
    if constexpr (std::is_same_v<E, float>) {
      naive_kernel<<<grid, block, 0, stream>>>(make_args(p));
    } else {
      naive_typed_kernel<E, CT><<<grid, block, 0, stream>>>(make_args(p));
    }
    return 0;
  });
  return cudaGetLastError();
}

}  // namespace

void register_naive(Registry& r) {
  KernelInfo k;
  k.name = "naive";
  k.family = "naive";
  k.rung = 1;
  k.tile = TileConfig{};
  k.tile.bm = kBlockY;
  k.tile.bn = kBlockX;
  k.tile.tm = 1;
  k.tile.tn = 1;
  k.tile.threads = kBlockX * kBlockY;
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // scalar loads and stores: any alignment
  k.desc.types = every_type_combination();
  k.summary = "one thread per C element, operands straight from global memory; every type "
              "(16-bit elements read as fp32)";
  k.can_implement = [](const Problem& p) { return tile_grid_fits(p, kBlockY, kBlockX); };
  k.launch = launch_naive;
  k.device_function = device_function_for(k.can_implement, naive_function);
  r.push_back(std::move(k));
}

}  // namespace tilegemm::kernels
