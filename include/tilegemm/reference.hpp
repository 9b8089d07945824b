// References every kernel is checked against: an fp64-accumulating device kernel, cuBLAS (for
// timing side by side and as a second opinion), and a small host reference for CPU tests.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "tilegemm/problem.hpp"
#include "tilegemm/status.hpp"

struct cublasContext;

namespace tilegemm::reference {

// out[i * n + j] = alpha * sum_k A(i,k) * B(k,j) + beta * C(i,j), accumulated in double, with
// A and B read in their storage type (f32 and tf32: float, bf16, f16), each value exactly as
// stored (a tf32 operand is not rounded to tf32: the testbed's inputs are tf32 already), and C
// read from problem.c in its type (not written; not read when beta == 0). `out` is a device
// buffer of m * n doubles. Any m, n, k, layouts and leading dimensions; a types combination
// outside types_supported() is kNotSupported.
Status gemm_fp64(const Problem& problem, double* out, cudaStream_t stream);

// The same on the host; problem's pointers are host memory (bf16 and f16 as __nv_bfloat16 and
// __half). Returns m * n doubles, row-major; empty for a types combination outside
// types_supported().
std::vector<double> host_gemm(const Problem& problem);

// cuBLAS for any layout mix of every supported types combination, through cublasGemmEx_64:
// f32 -> f32 with CUBLAS_COMPUTE_32F (the handle keeps CUBLAS_DEFAULT_MATH: no tf32 shortcut
// for an f32 problem), tf32 -> f32 with CUBLAS_COMPUTE_32F_FAST_TF32, bf16 and f16 -> themselves
// or f32 with CUBLAS_COMPUTE_32F; alpha and beta fp32; CUBLAS_GEMM_DEFAULT. Column-major C is
// computed as C = op(A) op(B); row-major C as C^T = op(B)^T op(A)^T, the identity the seeds use.
// The problem is validated first (tilegemm::validate); a cuBLAS failure is kCublasError with
// cuBLAS's status name.
class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  // Whether the handle was created (there is a usable device).
  const Status& init_status() const { return init_; }
  Status gemm(const Problem& problem, cudaStream_t stream);

 private:
  cublasContext* handle_ = nullptr;
  Status init_;
};

}  // namespace tilegemm::reference
