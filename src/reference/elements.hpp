// Element types as C++ types, for the lab's own code (the fp64 references and the testbed): the
// conversions to double and from float, and the dispatch of a DType or a GemmTypes pair to the
// storage types (tf32 is stored as float). Written once here; the library's kernels keep their
// own, so that the reference shares no code with what it checks.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tilegemm/problem.hpp"

#if defined(__CUDACC__)
#define TILEGEMM_LAB_HD __host__ __device__
#else
#define TILEGEMM_LAB_HD
#endif

namespace tilegemm::lab {

// Exact: every f32, bf16 and f16 value is a double.
inline TILEGEMM_LAB_HD double widen(float x) { return static_cast<double>(x); }
inline TILEGEMM_LAB_HD double widen(__nv_bfloat16 x) {
  return static_cast<double>(__bfloat162float(x));
}
inline TILEGEMM_LAB_HD double widen(__half x) { return static_cast<double>(__half2float(x)); }

// Round to nearest even.
template <typename T>
TILEGEMM_LAB_HD T narrow(float x);
template <>
inline TILEGEMM_LAB_HD float narrow<float>(float x) {
  return x;
}
template <>
inline TILEGEMM_LAB_HD __nv_bfloat16 narrow<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
inline TILEGEMM_LAB_HD __half narrow<__half>(float x) {
  return __float2half_rn(x);
}

// f(T{}) with T the storage type of `dtype`: float (f32, tf32), __nv_bfloat16 or __half.
template <typename F>
auto with_element(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kBF16:
      return f(__nv_bfloat16{});
    case DType::kF16:
      return f(__half{});
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  return f(float{});
}

// f(TAB{}, TC{}) with the storage types of A/B and of C. Call only for types_supported(types).
template <typename F>
auto with_types(GemmTypes types, F&& f) {
  return with_element(types.ab, [&](auto ab) {
    return with_element(types.c, [&](auto c) { return f(ab, c); });
  });
}

}  // namespace tilegemm::lab
