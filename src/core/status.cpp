#include "tilegemm/status.hpp"

#include <cuda_runtime_api.h>

namespace tilegemm {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kSuccess:
      return "success";
    case StatusCode::kNullA:
      return "null_a";
    case StatusCode::kNullB:
      return "null_b";
    case StatusCode::kNullC:
      return "null_c";
    case StatusCode::kInvalidM:
      return "invalid_m";
    case StatusCode::kInvalidN:
      return "invalid_n";
    case StatusCode::kInvalidK:
      return "invalid_k";
    case StatusCode::kInvalidLda:
      return "invalid_lda";
    case StatusCode::kInvalidLdb:
      return "invalid_ldb";
    case StatusCode::kInvalidLdc:
      return "invalid_ldc";
    case StatusCode::kInvalidDtypeA:
      return "invalid_dtype_a";
    case StatusCode::kInvalidDtypeB:
      return "invalid_dtype_b";
    case StatusCode::kInvalidDtypeC:
      return "invalid_dtype_c";
    case StatusCode::kMisalignedA:
      return "misaligned_a";
    case StatusCode::kMisalignedB:
      return "misaligned_b";
    case StatusCode::kMisalignedC:
      return "misaligned_c";
    case StatusCode::kUnknownKernel:
      return "unknown_kernel";
    case StatusCode::kNotSupported:
      return "not_supported";
    case StatusCode::kUnsupportedDevice:
      return "unsupported_device";
    case StatusCode::kCudaError:
      return "cuda_error";
    case StatusCode::kCublasError:
      return "cublas_error";
  }
  return "unknown_status";
}

std::string Status::name() const {
  if (code_ == StatusCode::kCudaError) {
    return cudaGetErrorName(static_cast<cudaError_t>(cuda_error_));
  }
  if (code_ == StatusCode::kCublasError) {
    return error_name_.empty() ? "cuBLAS status " + std::to_string(cuda_error_) : error_name_;
  }
  return status_code_name(code_);
}

std::string Status::message() const {
  switch (code_) {
    case StatusCode::kSuccess:
      return "success";
    case StatusCode::kNullA:
      return "argument A: null pointer for a non-empty matrix";
    case StatusCode::kNullB:
      return "argument B: null pointer for a non-empty matrix";
    case StatusCode::kNullC:
      return "argument C: null pointer for a non-empty matrix";
    case StatusCode::kInvalidM:
      return "argument m: must be >= 0";
    case StatusCode::kInvalidN:
      return "argument n: must be >= 0";
    case StatusCode::kInvalidK:
      return "argument k: must be >= 0";
    case StatusCode::kInvalidLda:
      return "argument lda: smaller than A's layout allows";
    case StatusCode::kInvalidLdb:
      return "argument ldb: smaller than B's layout allows";
    case StatusCode::kInvalidLdc:
      return "argument ldc: smaller than C's layout allows";
    case StatusCode::kInvalidDtypeA:
      return "argument A: dtype must be f32, tf32, bf16 or f16";
    case StatusCode::kInvalidDtypeB:
      return "argument B: dtype must equal A's";
    case StatusCode::kInvalidDtypeC:
      return "argument C: dtype cannot hold this product (f32 and tf32 A/B give f32 C; bf16 "
             "gives bf16 or f32; f16 gives f16 or f32)";
    case StatusCode::kMisalignedA:
      return "argument A: pointer not aligned to its element size";
    case StatusCode::kMisalignedB:
      return "argument B: pointer not aligned to its element size";
    case StatusCode::kMisalignedC:
      return "argument C: pointer not aligned to its element size";
    case StatusCode::kUnknownKernel:
      return "argument kernel: no registered kernel has this name";
    case StatusCode::kNotSupported:
      return "argument kernel: cannot implement this problem";
    case StatusCode::kUnsupportedDevice:
      return "argument kernel: cannot run on this GPU's compute capability";
    case StatusCode::kCudaError:
      return std::string("CUDA error ") + name() + ": " +
             cudaGetErrorString(static_cast<cudaError_t>(cuda_error_));
    case StatusCode::kCublasError:
      return std::string("cuBLAS error ") + name();
  }
  return "unknown status";
}

}  // namespace tilegemm
