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
// C read from problem.c (not written). `out` is a device buffer of m * n doubles.
Status gemm_fp64(const Problem& problem, double* out, cudaStream_t stream);

// The same on the host; problem's pointers are host memory. Returns m * n doubles, row-major.
std::vector<double> host_gemm(const Problem& problem);

// cuBLAS SGEMM for any layout mix of an fp32 problem. Column-major C is computed as
// C = op(A) op(B); row-major C as C^T = op(B)^T op(A)^T, the identity the seeds use.
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
