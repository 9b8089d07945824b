// The cuBLAS provider: every supported types combination through cublasGemmEx_64, for timing
// side by side and as a second opinion on the fp64 reference.
#include <cublas_v2.h>

#include <cstdint>
#include <string>

#include "tilegemm/gemm.hpp"
#include "tilegemm/reference.hpp"

namespace tilegemm::reference {

namespace {
Status from_cublas(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? Status()
                                    : Status(StatusCode::kCublasError, static_cast<int>(s),
                                             std::string(cublasGetStatusName(s)) + " (" +
                                                 cublasGetStatusString(s) + ")");
}

// Storage type of a dtype (tf32 is fp32 storage; the compute type asks for tf32 math).
cudaDataType_t data_type(DType dtype) {
  switch (dtype) {
    case DType::kBF16:
      return CUDA_R_16BF;
    case DType::kF16:
      return CUDA_R_16F;
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  return CUDA_R_32F;
}

// fp32 accumulation in every case; tf32 math only when A/B say tf32.
cublasComputeType_t compute_type(DType ab) {
  return ab == DType::kTF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}
}  // namespace

Cublas::Cublas() {
  cublasHandle_t h = nullptr;
  if (const cublasStatus_t s = cublasCreate(&h); s != CUBLAS_STATUS_SUCCESS) {
    init_ = from_cublas(s);
    return;
  }
  handle_ = h;
  // Default math: no TF32 tensor-core shortcut for an f32 problem, so that comparison is like
  // for like; tf32 comes only from the compute type of a tf32 problem.
  init_ = from_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
}

Cublas::~Cublas() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

Status Cublas::gemm(const Problem& p, cudaStream_t stream) {
  if (!init_.ok()) return init_;
  if (Status s = validate(p); !s.ok()) return s;
  if (p.m == 0 || p.n == 0) return Status();
  if (Status s = from_cublas(cublasSetStream(handle_, stream)); !s.ok()) return s;
  const cudaDataType_t ab_type = data_type(p.a.dtype);
  const cudaDataType_t c_type = data_type(p.c.dtype);
  const cublasComputeType_t compute = compute_type(p.a.dtype);
  // The 64-bit API: sizes and leading dimensions are int64_t, as in the problem.
  const std::int64_t m = p.m, n = p.n, k = p.k;
  const std::int64_t lda = p.a.ld, ldb = p.b.ld, ldc = p.c.ld;
  cublasStatus_t s;
  if (p.c.layout == Layout::kColMajor) {
    // C (m x n) = op(A) op(B): a row-major operand read column-major is its transpose.
    const cublasOperation_t op_a = p.a.layout == Layout::kColMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t op_b = p.b.layout == Layout::kColMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    s = cublasGemmEx_64(handle_, op_a, op_b, m, n, k, &p.alpha, p.a.data, ab_type, lda, p.b.data,
                        ab_type, ldb, &p.beta, p.c.data, c_type, ldc, compute,
                        CUBLAS_GEMM_DEFAULT);
  } else {
    // Row-major C is column-major C^T (n x m) = B^T A^T.
    const cublasOperation_t op_b = p.b.layout == Layout::kRowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t op_a = p.a.layout == Layout::kRowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    s = cublasGemmEx_64(handle_, op_b, op_a, n, m, k, &p.alpha, p.b.data, ab_type, ldb, p.a.data,
                        ab_type, lda, &p.beta, p.c.data, c_type, ldc, compute,
                        CUBLAS_GEMM_DEFAULT);
  }
  return from_cublas(s);
}

}  // namespace tilegemm::reference
