// fp64-accumulating reference GEMM on the device. Register-tiled (4 x 4 results a thread) so that
// it keeps up with the sweeps at 8192^3; correctness over speed everywhere else: 64-bit offsets,
// zero-padded edges, inputs widened to double as they are staged.
#include <cuda_runtime.h>

#include "../kernels/common.cuh"
#include "tilegemm/reference.hpp"

namespace tilegemm::reference {
namespace {

constexpr int kTile = 64;               // C tile edge per block
constexpr int kDepth = 16;              // K step
constexpr int kThreads = 16;            // threads per block edge (16 x 16)
constexpr int kPer = kTile / kThreads;  // results per thread per edge

__global__ void __launch_bounds__(kThreads* kThreads)
    gemm_fp64_kernel(kernels::GemmArgs g, const float* c_in, double* out) {
  __shared__ double As[kTile][kDepth + 1];  // (m, k), padded: column reads hit distinct banks
  __shared__ double Bs[kDepth][kTile];      // (k, n)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * kThreads + tx;
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;

  double acc[kPer][kPer] = {};
  for (std::int64_t t = 0; t < g.k; t += kDepth) {
    for (int e = tid; e < kTile * kDepth; e += kThreads * kThreads) {
      const int r = e / kDepth, kk = e % kDepth;
      const std::int64_t gi = row0 + r, gk = t + kk;
      As[r][kk] = (gi < g.m && gk < g.k) ? g.a[gi * g.a_rs + gk * g.a_cs] : 0.0;
    }
    for (int e = tid; e < kTile * kDepth; e += kThreads * kThreads) {
      const int kk = e / kTile, c = e % kTile;
      const std::int64_t gk = t + kk, gj = col0 + c;
      Bs[kk][c] = (gk < g.k && gj < g.n) ? g.b[gk * g.b_rs + gj * g.b_cs] : 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
#pragma unroll
        for (int j = 0; j < kPer; ++j) {
          acc[i][j] = fma(As[ty + i * kThreads][kk], Bs[kk][tx + j * kThreads], acc[i][j]);
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const std::int64_t gi = row0 + ty + i * kThreads, gj = col0 + tx + j * kThreads;
      if (gi < g.m && gj < g.n) {
        double v = static_cast<double>(g.alpha) * acc[i][j];
        if (g.beta != 0.0f) {
          v += static_cast<double>(g.beta) * c_in[gi * g.c_rs + gj * g.c_cs];
        }
        out[gi * g.n + gj] = v;
      }
    }
  }
}

}  // namespace

Status gemm_fp64(const Problem& p, double* out, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return Status();
  if (!kernels::tile_grid_fits(p, kTile, kTile)) return Status(StatusCode::kNotSupported);
  kernels::GemmArgs g = kernels::make_args(p);
  gemm_fp64_kernel<<<kernels::tile_grid(p, kTile, kTile), dim3(kThreads, kThreads), 0, stream>>>(
      g, static_cast<const float*>(p.c.data), out);
  const cudaError_t err = cudaGetLastError();
  return from_cuda_error(err);
}

}  // namespace tilegemm::reference
