#include "tilegemm/problem.hpp"

namespace tilegemm {

const char* layout_name(Layout layout) {
  return layout == Layout::kRowMajor ? "row" : "col";
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kTF32:
      return "tf32";
    case DType::kBF16:
      return "bf16";
    case DType::kF16:
      return "f16";
  }
  return "unknown";
}

std::size_t dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::kF32:
    case DType::kTF32:
      return 4;
    case DType::kBF16:
    case DType::kF16:
      return 2;
  }
  return 0;
}

bool dtype_valid(DType dtype) {
  switch (dtype) {
    case DType::kF32:
    case DType::kTF32:
    case DType::kBF16:
    case DType::kF16:
      return true;
  }
  return false;
}

const char* gemm_types_name(GemmTypes t) {
  if (t.ab == t.c || (t.ab == DType::kTF32 && t.c == DType::kF32)) return dtype_name(t.ab);
  if (t.ab == DType::kBF16 && t.c == DType::kF32) return "bf16->f32";
  if (t.ab == DType::kF16 && t.c == DType::kF32) return "f16->f32";
  return "unsupported";
}

bool types_supported(GemmTypes t) {
  switch (t.ab) {
    case DType::kF32:
    case DType::kTF32:
      return t.c == DType::kF32;
    case DType::kBF16:
    case DType::kF16:
      return t.c == t.ab || t.c == DType::kF32;
  }
  return false;
}

DType default_c_dtype(DType ab) {
  return ab == DType::kTF32 ? DType::kF32 : ab;
}

Problem Problem::make_typed(std::int64_t m, std::int64_t n, std::int64_t k, GemmTypes types,
                            const void* a, const void* b, void* c, float alpha, float beta,
                            Layout la, Layout lb, Layout lc) {
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = alpha;
  p.beta = beta;
  p.a = {a, la, min_ld(la, m, k), types.ab};
  p.b = {b, lb, min_ld(lb, k, n), types.ab};
  p.c = {c, lc, min_ld(lc, m, n), types.c};
  return p;
}

Problem Problem::make(std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                      const float* b, float* c, float alpha, float beta, Layout la, Layout lb,
                      Layout lc) {
  return make_typed(m, n, k, GemmTypes{DType::kF32, DType::kF32}, a, b, c, alpha, beta, la, lb,
                    lc);
}

}  // namespace tilegemm
