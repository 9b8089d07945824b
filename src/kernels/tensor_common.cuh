// What the tensor-core families share on the device: C's element type (loads and stores of one
// or two consecutive elements, converted from fp32 with round-to-nearest-even) and the 32-bit
// shared-memory address PTX instructions take.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "async_copy.cuh"
#include "tilegemm/problem.hpp"

namespace tilegemm::kernels {

// fp32 as tf32 parts (rung 22's 3xTF32): x's tf32 rounding and the tf32 rounding of what is left,
// x - big (exact in fp32). The remainder of an Inf or NaN is taken as 0 (x - tf32(x) would be
// NaN); a finite x whose tf32 rounding overflows keeps its truncation (22_wgmma_3xtf32.cu says
// what becomes of non-finite inputs).
__device__ __forceinline__ float tf32_round(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}
__device__ __forceinline__ float2 split_tf32(float x) {
  float big = tf32_round(x);
  if (isinf(big) && !isinf(x)) big = __uint_as_float(__float_as_uint(x) & 0xffffe000u);
  const float small = isfinite(big) ? tf32_round(x - big) : 0.0f;
  return make_float2(big, small);
}
// The same split in integer steps for the main loop of the in-kernel split (cvt.rna.tf32 is not
// one instruction): adding half a tf32 ulp to the bit pattern and clearing the 13 low bits rounds
// the magnitude to nearest, ties away from zero, as cvt.rna does. Valid where |x| < 0x7f7ff000 as
// a bit pattern (finite, and its rounding stays finite): the caller folds `magnitude` with max
// and takes split_tf32 for any x past that.
constexpr unsigned kTf32FastLimit = 0x7f7ff000u;
__device__ __forceinline__ float2 split_tf32_round(float x) {
  const float big = __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
  const float small = __uint_as_float((__float_as_uint(x - big) + 0x1000u) & 0xffffe000u);
  return make_float2(big, small);
}
__device__ __forceinline__ float2 split_tf32_finite(float x, unsigned& magnitude) {
  magnitude = max(magnitude, __float_as_uint(x) & 0x7fffffffu);
  return split_tf32_round(x);
}

// C's element type: loads and stores of one or two consecutive elements, converted from the fp32
// result with round-to-nearest-even.
template <class T>
struct OutC;
template <>
struct OutC<float> {
  static constexpr DType kDType = DType::kF32;
  __device__ __forceinline__ static float load1(const float* p) { return *p; }
  __device__ __forceinline__ static void store1(float* p, float v) { *p = v; }
  __device__ __forceinline__ static float2 load2(const float* p) {
    return *reinterpret_cast<const float2*>(p);
  }
  __device__ __forceinline__ static void store2(float* p, float x, float y) {
    *reinterpret_cast<float2*>(p) = make_float2(x, y);
  }
};
template <>
struct OutC<__nv_bfloat16> {
  static constexpr DType kDType = DType::kBF16;
  __device__ __forceinline__ static float load1(const __nv_bfloat16* p) {
    return __bfloat162float(*p);
  }
  __device__ __forceinline__ static void store1(__nv_bfloat16* p, float v) {
    *p = __float2bfloat16_rn(v);
  }
  __device__ __forceinline__ static float2 load2(const __nv_bfloat16* p) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
  }
  __device__ __forceinline__ static void store2(__nv_bfloat16* p, float x, float y) {
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(x, y);
  }
};
template <>
struct OutC<__half> {
  static constexpr DType kDType = DType::kF16;
  __device__ __forceinline__ static float load1(const __half* p) { return __half2float(*p); }
  __device__ __forceinline__ static void store1(__half* p, float v) { *p = __float2half_rn(v); }
  __device__ __forceinline__ static float2 load2(const __half* p) {
    return __half22float2(*reinterpret_cast<const __half2*>(p));
  }
  __device__ __forceinline__ static void store2(__half* p, float x, float y) {
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(x, y);
  }
};

// A 16-bit element's value from its storage bits, and its bits from a value, by OutC's
// conversions (round to nearest even): for elements carried as bits until they are used.
template <class E>
__device__ __forceinline__ float value_of_bits(unsigned short bits) {
  static_assert(sizeof(E) == 2, "16-bit element types");
  return OutC<E>::load1(reinterpret_cast<const E*>(&bits));
}
template <class E>
__device__ __forceinline__ unsigned short bits_of_value(float v) {
  static_assert(sizeof(E) == 2, "16-bit element types");
  E e;
  OutC<E>::store1(&e, v);
  return *reinterpret_cast<const unsigned short*>(&e);
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// cp.async (sm_80 and later) of 16 bytes, global -> shared (both 16-byte aligned), L1 bypassed:
// src_bytes (0..16) are read and the rest of the 16 written as zero; src_bytes == 0 reads nothing,
// but src must still be a valid address, and the whole 16 count as accessed (memcheck). L2_128B
// also prefetches the surrounding 128 bytes into L2 (rung 13's tiles read them next).
template <bool L2_128B = true>
__device__ __forceinline__ void cp_async_16_zfill(std::uint32_t dst, const void* src,
                                                  int src_bytes) {
  if constexpr (L2_128B) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
  }
}

// cp.async of one 4-byte element (fp32 or tf32 storage), global -> shared, zero-filled when
// src_bytes == 0 (src must still be a valid address).
__device__ __forceinline__ void cp_async_4_zfill(std::uint32_t dst, const void* src,
                                                 int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}

// The mbarrier at `bar` (shared address) counts one arrival of this thread once all of its
// cp.async issued so far have landed (noinc: the arrival is one of those the barrier expects).
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc(std::uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

// One element of C: alpha * acc + beta * C, rounded to C's type; C is never read when beta == 0.
template <class CT>
__device__ __forceinline__ void store_c_one(CT* c, float acc, float alpha, float beta) {
  float v = alpha * acc;
  if (beta != 0.0f) v = fmaf(beta, OutC<CT>::load1(c), v);
  OutC<CT>::store1(c, v);
}

// The epilogue of one accumulator pair: C(row, col + {0, 1}) = alpha * (x, y) + beta * C, for
// the columns below cols_left (C's padding is never written), C read only when beta != 0, one
// 2-element access when `vec2` (C's base and ld even) and both columns are inside.
template <class CT>
__device__ __forceinline__ void store_c_pair(CT* c_row, int col, int cols_left, float x, float y,
                                             float alpha, float beta, bool vec2) {
  float v0 = alpha * x;
  float v1 = alpha * y;
  if (vec2 && col + 1 < cols_left) {
    if (beta != 0.0f) {
      const float2 old = OutC<CT>::load2(c_row + col);
      v0 = fmaf(beta, old.x, v0);
      v1 = fmaf(beta, old.y, v1);
    }
    OutC<CT>::store2(c_row + col, v0, v1);
    return;
  }
  if (col < cols_left) store_c_one(c_row + col, x, alpha, beta);
  if (col + 1 < cols_left) store_c_one(c_row + col + 1, y, alpha, beta);
}

template <class T>
struct Type {
  using type = T;
};
// Calls f(Type<E>, Type<CT>) with the storage types of a problem's A/B and C (tf32: fp32), for
// the families that compute every type combination in fp32 on the CUDA cores.
template <class F>
decltype(auto) with_types(GemmTypes t, F&& f) {
  if (t.ab == DType::kF32 || t.ab == DType::kTF32) return f(Type<float>{}, Type<float>{});
  if (t == GemmTypes{DType::kBF16, DType::kBF16}) {
    return f(Type<__nv_bfloat16>{}, Type<__nv_bfloat16>{});
  }
  if (t == GemmTypes{DType::kBF16, DType::kF32}) return f(Type<__nv_bfloat16>{}, Type<float>{});
  if (t == GemmTypes{DType::kF16, DType::kF16}) return f(Type<__half>{}, Type<__half>{});
  return f(Type<__half>{}, Type<float>{});
}

// The six A/B -> C type combinations with_types covers.
inline std::vector<GemmTypes> every_type_combination() {
  return {GemmTypes{DType::kF32, DType::kF32},   GemmTypes{DType::kTF32, DType::kF32},
          GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kBF16, DType::kF32},
          GemmTypes{DType::kF16, DType::kF16},   GemmTypes{DType::kF16, DType::kF32}};
}

}  // namespace tilegemm::kernels
