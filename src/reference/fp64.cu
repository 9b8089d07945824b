// fp64-accumulating reference GEMM on the device. Register-tiled (4 x 4 results a thread) so that
// it keeps up with the sweeps at 8192^3; correctness over speed everywhere else: 64-bit sizes
// and offsets, zero-padded edges, inputs widened to double as they are staged. It has its own
// strided reader and argument block and includes no kernel header: the reference shares no code
// with what it checks.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "elements.hpp"
#include "tilegemm/reference.hpp"

namespace tilegemm::reference {
namespace {

constexpr int kTile = 64;               // C tile edge per block
constexpr int kDepth = 16;              // K step
constexpr int kThreads = 16;            // threads per block edge (16 x 16)
constexpr int kPer = kTile / kThreads;  // results per thread per edge
constexpr std::int64_t kMaxGridY = 65535;

using lab::widen;

// Element (i, j) of a matrix is data[i * rs + j * cs]: the strides carry the layout.
template <typename T>
struct Strided {
  const T* data;
  std::int64_t rs, cs;
  __device__ double operator()(std::int64_t i, std::int64_t j) const {
    return widen(data[i * rs + j * cs]);
  }
};

template <typename TAB, typename TC>
struct RefArgs {
  std::int64_t m, n, k;
  float alpha, beta;
  Strided<TAB> a, b;
  Strided<TC> c;  // read only when beta != 0
};

template <typename T>
Strided<T> strided(const void* data, Layout layout, std::int64_t ld) {
  const Strides s = strides_of(layout, ld);
  return Strided<T>{static_cast<const T*>(data), s.row, s.col};
}

// x walks the N tiles, y the M tiles (grid-striding in y past the hardware limit).
template <typename TAB, typename TC>
__global__ void __launch_bounds__(kThreads* kThreads)
    gemm_fp64_kernel(RefArgs<TAB, TC> g, std::int64_t tiles_m, double* out) {
  __shared__ double As[kTile][kDepth + 1];  // (m, k), padded: column reads hit distinct banks
  __shared__ double Bs[kDepth][kTile];      // (k, n)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * kThreads + tx;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;

  for (std::int64_t tile_m = blockIdx.y; tile_m < tiles_m; tile_m += gridDim.y) {
    const std::int64_t row0 = tile_m * kTile;
    double acc[kPer][kPer] = {};
    for (std::int64_t t = 0; t < g.k; t += kDepth) {
      for (int e = tid; e < kTile * kDepth; e += kThreads * kThreads) {
        const int r = e / kDepth, kk = e % kDepth;
        const std::int64_t gi = row0 + r, gk = t + kk;
        As[r][kk] = (gi < g.m && gk < g.k) ? g.a(gi, gk) : 0.0;
      }
      for (int e = tid; e < kTile * kDepth; e += kThreads * kThreads) {
        const int kk = e / kTile, c = e % kTile;
        const std::int64_t gk = t + kk, gj = col0 + c;
        Bs[kk][c] = (gk < g.k && gj < g.n) ? g.b(gk, gj) : 0.0;
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
          if (g.beta != 0.0f) v += static_cast<double>(g.beta) * g.c(gi, gj);
          out[gi * g.n + gj] = v;
        }
      }
    }
  }
}

template <typename TAB, typename TC>
Status launch(const Problem& p, double* out, cudaStream_t stream) {
  const RefArgs<TAB, TC> g{p.m,
                           p.n,
                           p.k,
                           p.alpha,
                           p.beta,
                           strided<TAB>(p.a.data, p.a.layout, p.a.ld),
                           strided<TAB>(p.b.data, p.b.layout, p.b.ld),
                           strided<TC>(p.c.data, p.c.layout, p.c.ld)};
  const std::int64_t tiles_n = (p.n + kTile - 1) / kTile;
  const std::int64_t tiles_m = (p.m + kTile - 1) / kTile;
  if (tiles_n > 0x7fffffff) return Status(StatusCode::kNotSupported);
  const dim3 grid(static_cast<unsigned>(tiles_n),
                  static_cast<unsigned>(tiles_m < kMaxGridY ? tiles_m : kMaxGridY));
  gemm_fp64_kernel<TAB, TC><<<grid, dim3(kThreads, kThreads), 0, stream>>>(g, tiles_m, out);
  return from_cuda_error(cudaGetLastError());
}

}  // namespace

Status gemm_fp64(const Problem& p, double* out, cudaStream_t stream) {
  if (!types_supported(p.types()) || p.b.dtype != p.a.dtype) {
    return Status(StatusCode::kNotSupported);
  }
  if (p.m <= 0 || p.n <= 0) return Status();
  return lab::with_types(p.types(), [&](auto ab, auto c) {
    return launch<decltype(ab), decltype(c)>(p, out, stream);
  });
}

}  // namespace tilegemm::reference
