// Status codes of libtilegemm. Argument errors are numbered in the order validate() checks them,
// like the argument positions BLAS's xerbla reports; nothing is launched or written on an error.
#pragma once

#include <string>

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
  kUnsupportedDtype = 10,  // no kernel of the library takes this dtype combination
  kUnknownKernel = 11,     // gemm() was given a kernel name the registry does not hold
  kNotSupported = 12,  // the named kernel cannot implement this problem (can_implement == false)
  kCudaError = 13,     // the CUDA runtime reported an error; see cuda_error()
  kCublasError = 14,   // cuBLAS (the reference provider) failed; cuda_error() holds its status
};

class Status {
 public:
  Status() = default;
  explicit Status(StatusCode code, int cuda_error = 0) : code_(code), cuda_error_(cuda_error) {}

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
};

const char* status_code_name(StatusCode code);

// A cudaError_t as a Status: success for cudaSuccess (0), kCudaError carrying the code otherwise.
inline Status from_cuda_error(int cuda_error) {
  return cuda_error == 0 ? Status() : Status(StatusCode::kCudaError, cuda_error);
}

}  // namespace tilegemm
