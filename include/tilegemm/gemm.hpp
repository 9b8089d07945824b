// The library's entry points.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>
#include <vector>

#include "tilegemm/kernel.hpp"
#include "tilegemm/problem.hpp"
#include "tilegemm/status.hpp"

namespace tilegemm {

// BLAS-style argument checks, in this order: null pointers, m < 0, n < 0, k < 0, lda, ldb, ldc,
// dtypes (A one of the four, B equal to A, C able to hold the product: types_supported), each
// pointer aligned to its element size. A pointer may be null only when its matrix is empty.
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
// Kernels that compute these element types and run on compute capability `cc` (10 * major +
// minor), in ladder order.
std::vector<const KernelInfo*> kernels_for(GemmTypes types, int cc);
// Whether the kernel can run on the calling thread's current GPU (false without one).
bool runs_on_current_device(const KernelInfo& kernel);

// How `auto` may compute an fp32 product (A, B and C fp32):
//  - kThreeTf32 (the default): as three tf32 tensor-core products (rung 22, sm_90a) where the
//    product is large against its operands, or where M or N is small and the long operand is
//    read in place or copied into the L2 (split inside the kernel), on the CUDA cores
//    elsewhere: faster than cuBLAS's SGEMM there, with a relative error below SGEMM's except at
//    the shortest K on the large products (the tensor cores' sums go into a rounding fp32
//    accumulator every few k-tiles). NaN propagates, but an Inf in A or B may come out NaN (its
//    tf32 part times a zero remainder). The measurements are in docs/perf-notes.md, "Rung 22"
//    and "Rung 22's split in the kernel".
//  - kSimt: on the CUDA cores only, fp32 multiply-adds as cuBLAS's default math.
// Process-wide, read by every later `auto` choice; a kernel named explicitly runs its own math.
// The environment variable TILEGEMM_FP32_MATH ("3xtf32" or "simt") sets it at start-up.
enum class Fp32Math { kSimt, kThreeTf32 };
void set_fp32_math(Fp32Math math);
Fp32Math fp32_math();
// Empty, or one line saying why TILEGEMM_FP32_MATH's current value is not taken (neither
// "3xtf32" nor "simt"); the library only reports it, the CLI prints it.
std::string fp32_math_env_note();

// The kernel `auto` runs for this problem on a GPU of compute capability `cc`: only kernels
// that compute the problem's exact element types (tf32 math only for a tf32 problem) and run on
// `cc`, chosen by the shape rules (src/core/dispatch.cpp). Null when none can implement it.
const KernelInfo* select_kernel(const Problem& problem, int cc);
// The same for the current GPU (compute capability 9.0, 132 SMs assumed without one, so the
// rules stay defined and testable on a machine without a GPU).
const KernelInfo* select_kernel(const Problem& problem);

// C = alpha * A * B + beta * C on `stream`, with the named kernel or "auto". Validates first:
// on any error nothing is launched and C is untouched. A named kernel that does not compute the
// problem's types or shape is kNotSupported; one that cannot run on this GPU kUnsupportedDevice. CUDA errors come back as kCudaError with
// the CUDA error code; this never aborts.
Status gemm(const Problem& problem, std::string_view kernel = "auto", cudaStream_t stream = 0);

}  // namespace tilegemm
