// What every kernel file shares: the argument block, launch geometry, the edge predicate and the
// epilogue, written once. Kernel files include this and nothing of the framework beyond it.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <functional>

#include "tilegemm/kernel.hpp"
#include "tilegemm/problem.hpp"

namespace tilegemm::kernels {

// Flattened problem for a kernel: element (i, j) of X is x[i * x_rs + j * x_cs]. The strides
// carry the layout, so one kernel body serves every layout mix without copies.
struct GemmArgs {
  int m, n, k;
  float alpha, beta;
  const float* a;
  std::int64_t a_rs, a_cs;
  const float* b;
  std::int64_t b_rs, b_cs;
  float* c;
  std::int64_t c_rs, c_cs;
};

inline GemmArgs make_args(const Problem& p) {
  const Strides sa = strides_of(p.a.layout, p.a.ld);
  const Strides sb = strides_of(p.b.layout, p.b.ld);
  const Strides sc = strides_of(p.c.layout, p.c.ld);
  return GemmArgs{static_cast<int>(p.m),
                  static_cast<int>(p.n),
                  static_cast<int>(p.k),
                  p.alpha,
                  p.beta,
                  static_cast<const float*>(p.a.data),
                  sa.row,
                  sa.col,
                  static_cast<const float*>(p.b.data),
                  sb.row,
                  sb.col,
                  static_cast<float*>(p.c.data),
                  sc.row,
                  sc.col};
}

__host__ __device__ constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// m, n, k fit the kernels' int arguments.
inline bool dims_fit_int(const Problem& p) {
  return p.m <= INT_MAX && p.n <= INT_MAX && p.k <= INT_MAX;
}

// Largest element offset of a rows x cols view plus one; a kernel that indexes with 32-bit
// offsets needs this to fit in an int.
inline std::int64_t span_elements(Layout layout, std::int64_t ld, std::int64_t rows,
                                  std::int64_t cols) {
  const std::int64_t outer = layout == Layout::kRowMajor ? rows : cols;
  const std::int64_t inner = layout == Layout::kRowMajor ? cols : rows;
  return (outer - 1) * ld + inner;
}
inline bool offsets_fit_int(const Problem& p) {
  return span_elements(p.a.layout, p.a.ld, p.m, p.k) <= INT_MAX &&
         span_elements(p.b.layout, p.b.ld, p.k, p.n) <= INT_MAX &&
         span_elements(p.c.layout, p.c.ld, p.m, p.n) <= INT_MAX;
}

// Grid of block tiles: x walks the N tiles, y the M tiles (x has the larger hardware limit).
inline dim3 tile_grid(const Problem& p, int bm, int bn) {
  return dim3(static_cast<unsigned>(ceil_div(p.n, bn)), static_cast<unsigned>(ceil_div(p.m, bm)));
}
inline bool tile_grid_fits(const Problem& p, int bm, int bn) {
  return dims_fit_int(p) && ceil_div(p.n, bn) <= INT_MAX && ceil_div(p.m, bm) <= 65535;
}

// A KernelInfo::device_function for an instance whose launch runs one __global__ function
// whatever the problem.
inline std::function<const void*(const Problem&)> same_function(const void* f) {
  return [f](const Problem&) { return f; };
}

// C = alpha * acc + beta * C. With beta == 0, C is not read: it may hold NaN or garbage, as BLAS.
__device__ __forceinline__ void epilogue_store(float* c, float acc, float alpha, float beta) {
  *c = beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

}  // namespace tilegemm::kernels
