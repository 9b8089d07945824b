// What every kernel file shares: the argument block, launch geometry, the description and
// device-function helpers of a registry entry, and the epilogue, written once. The problem views
// and 32-bit checks live in problem_views.hpp (host only, shared with the CuTe kernels and the
// CPU tests). Kernel files include this and nothing of the framework beyond it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

#include "problem_views.hpp"
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

// A problem with a row-major C as the element-generic CUDA-core families read it (rungs 19 and
// 24): A and B of any element type by their element strides along (M, K) and (K, N), C by its
// leading dimension. strided_problem() needs q.c row-major (views::row_major_c).
struct StridedProblem {
  int m, n, k;
  float alpha, beta;
  const void* a;
  std::int64_t a_m, a_k;  // element strides of A along M and along K
  const void* b;
  std::int64_t b_k, b_n;  // element strides of B along K and along N
  void* c;
  std::int64_t ldc;
};

inline StridedProblem strided_problem(const Problem& q) {
  const Strides sa = strides_of(q.a.layout, q.a.ld);
  const Strides sb = strides_of(q.b.layout, q.b.ld);
  return StridedProblem{static_cast<int>(q.m), static_cast<int>(q.n), static_cast<int>(q.k),
                        q.alpha, q.beta, q.a.data, sa.row, sa.col, q.b.data, sb.row, sb.col,
                        q.c.data, q.c.ld};
}

// The shared host-side views and checks (problem_views.hpp) the kernel files call unqualified.
using views::ceil_div;
using views::tile_grid_fits;

// Grid of block tiles: x walks the N tiles, y the M tiles (x has the larger hardware limit).
// Launch it only for a problem that tile_grid_fits accepts.
inline dim3 tile_grid(const Problem& p, int bm, int bn) {
  const views::TileCounts t = views::tile_counts(p, bm, bn);
  return dim3(static_cast<unsigned>(t.n), static_cast<unsigned>(t.m));
}

// ---- Descriptions ------------------------------------------------------------------------------

#if defined(TILEGEMM_MIN_BUILT_CC)
// The lowest architecture the library is compiled for (CMake: the smallest entry of
// CMAKE_CUDA_ARCHITECTURES): no instance runs on an older GPU.
inline constexpr int kMinBuiltCc = TILEGEMM_MIN_BUILT_CC;
// Families that issue cp.async need sm_80 as well.
inline constexpr int kCpAsyncMinCc = kMinBuiltCc > 80 ? kMinBuiltCc : 80;
#endif

// The description of an fp32 SIMT instance: FFMA on the CUDA cores, f32 -> f32 with fp32
// accumulation, the alignment its fastest path needs (elements of A, B, C: 4 for an operand
// copied as 16-byte vectors, 1 for any), from min_cc up; no split-K, the plain main loop (a
// family with split-K entries or main-loop variants sets split_k and variant itself).
inline KernelDesc simt_f32_desc(int align_a, int align_b, int align_c, int min_cc) {
  KernelDesc d;
  d.op_class = OpClass::kSimt;
  d.types = {GemmTypes{DType::kF32, DType::kF32}};
  d.accumulator = DType::kF32;
  d.align_a = align_a;
  d.align_b = align_b;
  d.align_c = align_c;
  d.min_cc = min_cc;
  d.max_cc = 0;
  return d;
}

// ---- Device functions --------------------------------------------------------------------------

// The address of a __global__ function, as KernelInfo::device_function returns it.
template <typename... Args>
const void* kernel_address(void (*kernel)(Args...)) {
  return reinterpret_cast<const void*>(kernel);
}

// A KernelInfo::device_function: for a problem `can_implement` accepts, the instantiation
// `pick(problem)` names (the one launch() runs for it); null for a problem launch() would not run.
template <typename CanImplement, typename Pick>
std::function<const void*(const Problem&)> device_function_for(CanImplement can_implement,
                                                               Pick pick) {
  return [can_implement, pick](const Problem& p) -> const void* {
    return can_implement(p) ? pick(p) : nullptr;
  };
}

// C = alpha * acc + beta * C. With beta == 0, C is not read: it may hold NaN or garbage, as BLAS.
__device__ __forceinline__ void epilogue_store(float* c, float acc, float alpha, float beta) {
  *c = beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

}  // namespace tilegemm::kernels
