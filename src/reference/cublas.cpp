#include <cublas_v2.h>

#include <cstdint>
#include <string>

#include "tilegemm/reference.hpp"

namespace tilegemm::reference {

namespace {
Status from_cublas(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? Status()
                                    : Status(StatusCode::kCublasError, static_cast<int>(s),
                                             std::string(cublasGetStatusName(s)) + " (" +
                                                 cublasGetStatusString(s) + ")");
}
}  // namespace

Cublas::Cublas() {
  cublasHandle_t h = nullptr;
  if (const cublasStatus_t s = cublasCreate(&h); s != CUBLAS_STATUS_SUCCESS) {
    init_ = from_cublas(s);
    return;
  }
  handle_ = h;
  // Plain FP32 SGEMM: no TF32 tensor-core shortcut, so the comparison is like for like.
  cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH);
}

Cublas::~Cublas() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

Status Cublas::gemm(const Problem& p, cudaStream_t stream) {
  if (!init_.ok()) return init_;
  if (p.m == 0 || p.n == 0) return Status();
  if (Status s = from_cublas(cublasSetStream(handle_, stream)); !s.ok()) return s;
  const auto* a = static_cast<const float*>(p.a.data);
  const auto* b = static_cast<const float*>(p.b.data);
  auto* c = static_cast<float*>(p.c.data);
  // The 64-bit API: sizes and leading dimensions are int64_t, as in the problem.
  const std::int64_t m = p.m, n = p.n, k = p.k;
  const std::int64_t lda = p.a.ld, ldb = p.b.ld, ldc = p.c.ld;
  cublasStatus_t s;
  if (p.c.layout == Layout::kColMajor) {
    // C (m x n) = op(A) op(B): a row-major operand read column-major is its transpose.
    const cublasOperation_t op_a = p.a.layout == Layout::kColMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t op_b = p.b.layout == Layout::kColMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    s = cublasSgemm_64(handle_, op_a, op_b, m, n, k, &p.alpha, a, lda, b, ldb, &p.beta, c, ldc);
  } else {
    // Row-major C is column-major C^T (n x m) = B^T A^T.
    const cublasOperation_t op_b = p.b.layout == Layout::kRowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t op_a = p.a.layout == Layout::kRowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    s = cublasSgemm_64(handle_, op_b, op_a, n, m, k, &p.alpha, b, ldb, a, lda, &p.beta, c, ldc);
  }
  return from_cublas(s);
}

}  // namespace tilegemm::reference
