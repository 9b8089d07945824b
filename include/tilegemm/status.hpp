// Status codes of libtilegemm. Argument errors are numbered in the order validate() checks them,
// like the argument positions BLAS's xerbla reports; nothing is launched or written on an error.
#pragma once

#include <string>
#include <utility>

namespace tilegemm {

enum class StatusCode : int {
  kSuccess = 0,
  kNullA = 1,              // A has elements (m > 0 and k > 0) but its pointer is null
  kNullB = 2,              // B has elements (k > 0 and n > 0) but its pointer is null
  kNullC = 3,              // C has elements (m > 0 and n > 0) but its pointer is null
  kInvalidM = 4,           // m < 0
  kInvalidN = 5,           // n < 0
  kInvalidK = 6,           // k < 0
  kInvalidLda = 7,         // lda smaller than A's layout allows
  kInvalidLdb = 8,         // ldb smaller than B's layout allows
  kInvalidLdc = 9,         // ldc smaller than C's layout allows
  kInvalidDtypeA = 10,     // A's dtype is none of f32, tf32, bf16, f16
  kInvalidDtypeB = 11,     // B's dtype differs from A's
  kInvalidDtypeC = 12,     // C's dtype cannot take A/B's product (see types_supported)
  kMisalignedA = 13,       // A's pointer is not aligned to its element size
  kMisalignedB = 14,       // B's pointer is not aligned to its element size
  kMisalignedC = 15,       // C's pointer is not aligned to its element size
  kUnknownKernel = 16,     // gemm() was given a kernel name the registry does not hold
  kNotSupported = 17,  // the named kernel cannot implement this problem (can_implement == false)
  kUnsupportedDevice = 18,  // the named kernel cannot run on this GPU (desc.min_cc / max_cc)
  kCudaError = 19,     // the CUDA runtime reported an error; see cuda_error()
  kCublasError = 20,   // cuBLAS (the reference provider) failed; cuda_error() holds its status
};

class Status {
 public:
  Status() = default;
  explicit Status(StatusCode code, int cuda_error = 0) : code_(code), cuda_error_(cuda_error) {}
  // With the provider's own name for the error (cuBLAS's status name, say): the library itself
  // links only the CUDA runtime, so names of other libraries' codes come from their callers.
  Status(StatusCode code, int error, std::string error_name)
      : code_(code), cuda_error_(error), error_name_(std::move(error_name)) {}

  bool ok() const { return code_ == StatusCode::kSuccess; }
  StatusCode code() const { return code_; }
  // The cudaError_t value behind kCudaError (0 otherwise).
  int cuda_error() const { return cuda_error_; }
  // Stable identifier, e.g. "invalid_lda"; for kCudaError the CUDA error's name, e.g.
  // "cudaErrorInvalidConfiguration".
  std::string name() const;
  // One sentence naming the offending argument or error.
  std::string message() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.cuda_error_ == b.cuda_error_;
  }
  friend bool operator!=(const Status& a, const Status& b) { return !(a == b); }

 private:
  StatusCode code_ = StatusCode::kSuccess;
  int cuda_error_ = 0;
  std::string error_name_;
};

const char* status_code_name(StatusCode code);

// A cudaError_t as a Status: success for cudaSuccess (0), kCudaError carrying the code otherwise.
inline Status from_cuda_error(int cuda_error) {
  return cuda_error == 0 ? Status() : Status(StatusCode::kCudaError, cuda_error);
}

}  // namespace tilegemm
