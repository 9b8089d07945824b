// Element loads under a predicate, kept as storage bits until every load of a round is issued.
//
// A load whose value is converted or packed right after it (bf16 -> fp32, two 16-bit halves into
// a word) makes the warp wait at that instruction for the load to return before it issues the
// next one; the compiler places such a consumer next to its load, so a round of element loads
// became a round trip per few loads (rung 28's first builds; rung 17's element path). Here each
// load is one predicated instruction (no branch, zero where the predicate is false) into a 32-bit
// register of its own, and bits_to_float converts after the round (docs/perf-notes.md, "Rung 28").
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace tilegemm::kernels {

// The 16-bit value at p (zero-extended), or 0 where c is false (p is not read).
__device__ __forceinline__ std::uint32_t ld_u16_if(const void* p, bool c) {
  std::uint32_t v;
  asm("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %2, 0;\n\tmov.b32 %0, 0;\n\t"
      "@q ld.global.nc.u16 %0, [%1];\n\t}"
      : "=r"(v)
      : "l"(p), "r"(static_cast<unsigned>(c)));
  return v;
}

// The 32-bit word at p (4-byte aligned), or `otherwise` where c is false (p is not read).
__device__ __forceinline__ std::uint32_t ld_b32_if(const void* p, bool c,
                                                   std::uint32_t otherwise = 0u) {
  std::uint32_t v;
  asm("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %2, 0;\n\tmov.b32 %0, %3;\n\t"
      "@q ld.global.nc.b32 %0, [%1];\n\t}"
      : "=r"(v)
      : "l"(p), "r"(static_cast<unsigned>(c)), "r"(otherwise));
  return v;
}

// The two 32-bit words at p (8-byte aligned), or zeros where c is false (p is not read).
__device__ __forceinline__ uint2 ld_b64_if(const void* p, bool c) {
  uint2 v;
  asm("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %3, 0;\n\tmov.b32 %0, 0;\n\tmov.b32 %1, 0;\n\t"
      "@q ld.global.nc.v2.b32 {%0, %1}, [%2];\n\t}"
      : "=r"(v.x), "=r"(v.y)
      : "l"(p), "r"(static_cast<unsigned>(c)));
  return v;
}

// A 16-bit element's storage bits (ld_u16_if) as fp32. (32-bit elements need no conversion, so
// no consumer follows their loads: their kernels keep the compiler's own loads.)
template <class E>
__device__ __forceinline__ float bits_to_float(std::uint32_t b) {
  if constexpr (std::is_same_v<E, __nv_bfloat16>) {
    return __uint_as_float(b << 16);
  } else {
    static_assert(std::is_same_v<E, __half>, "bf16 or f16");
    return __half2float(__ushort_as_half(static_cast<unsigned short>(b)));
  }
}

}  // namespace tilegemm::kernels
