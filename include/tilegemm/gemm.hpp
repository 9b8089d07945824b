// The library's entry points.
#pragma once

#include <cuda_runtime_api.h>

#include <string_view>
#include <vector>

#include "tilegemm/kernel.hpp"
#include "tilegemm/problem.hpp"
#include "tilegemm/status.hpp"

namespace tilegemm {

// BLAS-style argument checks, in this order: null pointers, m < 0, n < 0, k < 0, lda, ldb, ldc,
// dtype. A pointer may be null only when its matrix is empty (a zero dimension).
Status validate(const Problem& problem);

enum class QuickReturn {
  kNone,     // a real product: launch a kernel
  kNothing,  // m == 0 or n == 0: C is empty
  kScaleC,   // k == 0 or alpha == 0: C = beta * C (beta == 0 writes zeros, never reads C)
};
// Meaningful only for a problem that validate() accepted.
QuickReturn quick_return(const Problem& problem);

// Every registered kernel, in ladder order.
const std::vector<KernelInfo>& all_kernels();
// nullptr when no kernel has this name.
const KernelInfo* find_kernel(std::string_view name);
// Kernels whose names match a glob ('*' and '?'); "auto" is not a kernel name.
std::vector<const KernelInfo*> match_kernels(std::string_view glob);
// The kernel `auto` runs for this problem (never null for a valid fp32 problem).
const KernelInfo* select_kernel(const Problem& problem);

// C = alpha * A * B + beta * C on `stream`, with the named kernel or "auto". Validates first:
// on any error nothing is launched and C is untouched. CUDA errors come back as kCudaError with
// the CUDA error code; this never aborts.
Status gemm(const Problem& problem, std::string_view kernel = "auto", cudaStream_t stream = 0);

}  // namespace tilegemm
