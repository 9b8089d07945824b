// Shared by the GPU tests: the types combinations the library computes, test-name tags for them,
// and reading or writing one element of a device matrix at its element width.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "tilegemm/problem.hpp"

namespace tilegemm {

// gtest prints parameters with this.
inline void PrintTo(GemmTypes t, std::ostream* os) { *os << gemm_types_name(t); }

namespace testing {

// Every combination types_supported() accepts, in the order the docs list them.
inline const std::vector<GemmTypes>& all_gemm_types() {
  static const std::vector<GemmTypes> types = {
      {DType::kF32, DType::kF32},   {DType::kTF32, DType::kF32}, {DType::kBF16, DType::kBF16},
      {DType::kBF16, DType::kF32},  {DType::kF16, DType::kF16},  {DType::kF16, DType::kF32}};
  return types;
}

// A test-name-safe tag: "f32", "tf32", "bf16", "bf16_to_f32", ...
inline std::string types_tag(GemmTypes t) {
  std::string tag = dtype_name(t.ab);
  if (t.c != default_c_dtype(t.ab)) tag += std::string("_to_") + dtype_name(t.c);
  return tag;
}

// Letters, digits and '_' only (gtest parameter names).
inline std::string test_name(std::string s) {
  for (char& ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    if (!ok) ch = '_';
  }
  return s;
}

inline std::string types_param_name(const ::testing::TestParamInfo<GemmTypes>& info) {
  return types_tag(info.param);
}

// The raw bytes of `bytes` bytes of device memory.
inline std::vector<unsigned char> download_bytes(const void* device, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  EXPECT_EQ(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

// Byte offset of C(i, j) in the problem's C.
inline std::size_t c_offset_bytes(const Problem& p, std::int64_t i, std::int64_t j) {
  const Strides s = strides_of(p.c.layout, p.c.ld);
  return static_cast<std::size_t>(i * s.row + j * s.col) * dtype_bytes(p.c.dtype);
}

// C(i, j) of a device problem, widened to float.
inline float read_c(const Problem& p, std::int64_t i, std::int64_t j) {
  const auto* base = static_cast<const unsigned char*>(p.c.data) + c_offset_bytes(p, i, j);
  switch (p.c.dtype) {
    case DType::kBF16: {
      __nv_bfloat16 v;
      EXPECT_EQ(cudaMemcpy(&v, base, sizeof(v), cudaMemcpyDeviceToHost), cudaSuccess);
      return __bfloat162float(v);
    }
    case DType::kF16: {
      __half v;
      EXPECT_EQ(cudaMemcpy(&v, base, sizeof(v), cudaMemcpyDeviceToHost), cudaSuccess);
      return __half2float(v);
    }
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  float v = 0.0f;
  EXPECT_EQ(cudaMemcpy(&v, base, sizeof(v), cudaMemcpyDeviceToHost), cudaSuccess);
  return v;
}

// Sets C(i, j) of a device problem to `value` rounded to C's type (NaN stays NaN).
inline void write_c(const Problem& p, std::int64_t i, std::int64_t j, float value) {
  auto* base = static_cast<unsigned char*>(p.c.data) + c_offset_bytes(p, i, j);
  switch (p.c.dtype) {
    case DType::kBF16: {
      const __nv_bfloat16 v = __float2bfloat16(value);
      EXPECT_EQ(cudaMemcpy(base, &v, sizeof(v), cudaMemcpyHostToDevice), cudaSuccess);
      return;
    }
    case DType::kF16: {
      const __half v = __float2half(value);
      EXPECT_EQ(cudaMemcpy(base, &v, sizeof(v), cudaMemcpyHostToDevice), cudaSuccess);
      return;
    }
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  EXPECT_EQ(cudaMemcpy(base, &value, sizeof(value), cudaMemcpyHostToDevice), cudaSuccess);
}

// Flips the lowest bit of the element at `element_offset` (in elements of C's type) of C's
// allocation: the smallest change there is.
inline void flip_low_bit(const Problem& p, std::int64_t element_offset) {
  const std::size_t width = dtype_bytes(p.c.dtype);
  auto* at = static_cast<unsigned char*>(p.c.data) + static_cast<std::size_t>(element_offset) * width;
  unsigned char byte = 0;  // little-endian: the lowest bit of the element is in its first byte
  ASSERT_EQ(cudaMemcpy(&byte, at, 1, cudaMemcpyDeviceToHost), cudaSuccess);
  byte = static_cast<unsigned char>(byte ^ 1u);
  ASSERT_EQ(cudaMemcpy(at, &byte, 1, cudaMemcpyHostToDevice), cudaSuccess);
}

}  // namespace testing
}  // namespace tilegemm
