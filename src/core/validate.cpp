#include <cstdint>

#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {
// A matrix needs storage unless one of its dimensions is zero. Negative dimensions count as
// non-empty here so that the null-pointer check keeps its place first in the order.
bool has_elements(std::int64_t rows, std::int64_t cols) {
  return rows != 0 && cols != 0;
}

bool element_aligned(const void* data, DType dtype) {
  return reinterpret_cast<std::uintptr_t>(data) % dtype_bytes(dtype) == 0;
}
}  // namespace

Status validate(const Problem& p) {
  if (has_elements(p.m, p.k) && p.a.data == nullptr) return Status(StatusCode::kNullA);
  if (has_elements(p.k, p.n) && p.b.data == nullptr) return Status(StatusCode::kNullB);
  if (has_elements(p.m, p.n) && p.c.data == nullptr) return Status(StatusCode::kNullC);
  if (p.m < 0) return Status(StatusCode::kInvalidM);
  if (p.n < 0) return Status(StatusCode::kInvalidN);
  if (p.k < 0) return Status(StatusCode::kInvalidK);
  if (p.a.ld < min_ld(p.a.layout, p.m, p.k)) return Status(StatusCode::kInvalidLda);
  if (p.b.ld < min_ld(p.b.layout, p.k, p.n)) return Status(StatusCode::kInvalidLdb);
  if (p.c.ld < min_ld(p.c.layout, p.m, p.n)) return Status(StatusCode::kInvalidLdc);
  if (!dtype_valid(p.a.dtype)) return Status(StatusCode::kInvalidDtypeA);
  if (p.b.dtype != p.a.dtype) return Status(StatusCode::kInvalidDtypeB);
  if (!dtype_valid(p.c.dtype) || !types_supported(p.types())) {
    return Status(StatusCode::kInvalidDtypeC);
  }
  if (!element_aligned(p.a.data, p.a.dtype)) return Status(StatusCode::kMisalignedA);
  if (!element_aligned(p.b.data, p.b.dtype)) return Status(StatusCode::kMisalignedB);
  if (!element_aligned(p.c.data, p.c.dtype)) return Status(StatusCode::kMisalignedC);
  return Status();
}

QuickReturn quick_return(const Problem& p) {
  if (p.m == 0 || p.n == 0) return QuickReturn::kNothing;
  if (p.k == 0 || p.alpha == 0.0f) return QuickReturn::kScaleC;
  return QuickReturn::kNone;
}

}  // namespace tilegemm
