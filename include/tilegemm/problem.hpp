// The GEMM problem: C = alpha * A * B + beta * C, with A (m x k), B (k x n), C (m x n) given as
// views (pointer, layout, leading dimension, dtype). Transposed operands are described by layout,
// never by copying. Row-major is the default, as in the seed documents.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilegemm {

enum class Layout : std::uint8_t { kRowMajor, kColMajor };

// Element types. kTF32 is fp32 storage read with tf32 math (10 mantissa bits), as cuBLAS's
// CUBLAS_COMPUTE_32F_FAST_TF32: a caller asks for it by giving A and B this dtype, and the library
// never applies it to a kF32 problem. Accumulation is fp32 in every kernel; alpha and beta are fp32.
enum class DType : std::uint8_t { kF32, kTF32, kBF16, kF16 };

const char* layout_name(Layout layout);  // "row" / "col"
const char* dtype_name(DType dtype);     // "f32", "tf32", "bf16", "f16"
std::size_t dtype_bytes(DType dtype);    // bytes of storage per element (tf32: 4)
// True for the four enumerators (a DType cast from a stray integer is not).
bool dtype_valid(DType dtype);

// The element types of one product: A and B share `ab`; C is `c`.
struct GemmTypes {
  DType ab = DType::kF32;
  DType c = DType::kF32;
  friend bool operator==(GemmTypes x, GemmTypes y) { return x.ab == y.ab && x.c == y.c; }
  friend bool operator!=(GemmTypes x, GemmTypes y) { return !(x == y); }
};
// "bf16" when C has A/B's type, else "bf16->f32".
const char* gemm_types_name(GemmTypes types);
// The combinations the library computes: f32 -> f32, tf32 -> f32, bf16 -> bf16 | f32,
// f16 -> f16 | f32 (the ones cublasGemmEx takes with CUBLAS_COMPUTE_32F*).
bool types_supported(GemmTypes types);
// The C dtype a problem gets when the caller names only A/B's: f32 for f32 and tf32, else the same.
DType default_c_dtype(DType ab);

template <typename Pointer>
struct MatrixView {
  Pointer data = nullptr;
  Layout layout = Layout::kRowMajor;
  std::int64_t ld = 0;  // elements between consecutive rows (row-major) or columns (col-major)
  DType dtype = DType::kF32;
};
using ConstMatrixRef = MatrixView<const void*>;
using MatrixRef = MatrixView<void*>;

// Smallest legal leading dimension of a rows x cols matrix in this layout (at least 1, as BLAS).
inline std::int64_t min_ld(Layout layout, std::int64_t rows, std::int64_t cols) {
  std::int64_t need = layout == Layout::kRowMajor ? cols : rows;
  return need > 1 ? need : 1;
}

// Element (i, j) lives at data[i * row_stride + j * col_stride].
struct Strides {
  std::int64_t row;
  std::int64_t col;
};
inline Strides strides_of(Layout layout, std::int64_t ld) {
  return layout == Layout::kRowMajor ? Strides{ld, 1} : Strides{1, ld};
}

struct Problem {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
  ConstMatrixRef a;  // m x k
  ConstMatrixRef b;  // k x n
  MatrixRef c;       // m x n

  // An fp32 problem with the given layouts and the tightest leading dimensions.
  static Problem make(std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                      const float* b, float* c, float alpha = 1.0f, float beta = 0.0f,
                      Layout la = Layout::kRowMajor, Layout lb = Layout::kRowMajor,
                      Layout lc = Layout::kRowMajor);
  // Any element types (A and B in types.ab, C in types.c), the tightest leading dimensions.
  static Problem make_typed(std::int64_t m, std::int64_t n, std::int64_t k, GemmTypes types,
                            const void* a, const void* b, void* c, float alpha = 1.0f,
                            float beta = 0.0f, Layout la = Layout::kRowMajor,
                            Layout lb = Layout::kRowMajor, Layout lc = Layout::kRowMajor);

  // A/B's and C's element types (validate() checks that A and B agree).
  GemmTypes types() const { return {a.dtype, c.dtype}; }

  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
};

}  // namespace tilegemm
