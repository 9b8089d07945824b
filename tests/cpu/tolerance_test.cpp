// The pass bound of the testbed (tolerance(), element_tolerance()): positive, growing with k,
// below the error of a missing K step at every depth the library is tested at, and ordered by
// how much precision each types combination loses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tilegemm/testbed.hpp"

namespace tilegemm {
namespace {

const std::vector<GemmTypes>& all_types() {
  static const std::vector<GemmTypes> types = {
      {DType::kF32, DType::kF32},  {DType::kTF32, DType::kF32}, {DType::kBF16, DType::kBF16},
      {DType::kBF16, DType::kF32}, {DType::kF16, DType::kF16},  {DType::kF16, DType::kF32}};
  return types;
}

// Depths from 16 to 16384: powers of two and the odd ones the sweeps use.
std::vector<std::int64_t> depths() {
  std::vector<std::int64_t> ks;
  for (std::int64_t k = 16; k <= 16384; k *= 2) ks.push_back(k);
  for (std::int64_t k : {17, 31, 33, 127, 129, 257, 1000, 1023, 1025, 4095, 4099, 8191}) {
    ks.push_back(k);
  }
  return ks;
}

// Relative error of a result that lost one K step of `bk` terms (alpha = 1, beta = 0, entries
// uniform in [-1, 1)): sqrt(bk / k). 8 is the smallest K tile in the registry.
double missing_step_error(std::int64_t k, std::int64_t bk = 8) {
  return std::sqrt(static_cast<double>(bk) / static_cast<double>(k));
}

TEST(Tolerance, EveryTypesCombinationIsSupported) {
  for (GemmTypes t : all_types()) EXPECT_TRUE(types_supported(t)) << gemm_types_name(t);
}

TEST(Tolerance, PositiveAndGrowingWithK) {
  for (GemmTypes t : all_types()) {
    double previous = 0.0;
    for (std::int64_t k = 1; k <= (std::int64_t{1} << 20); k *= 2) {
      const double tol = tolerance(t, k);
      EXPECT_GT(tol, 0.0) << gemm_types_name(t) << " k=" << k;
      EXPECT_GT(tol, previous) << gemm_types_name(t) << " k=" << k;
      EXPECT_LE(tolerance(t, k), tolerance(t, k + 1)) << gemm_types_name(t) << " k=" << k;
      previous = tol;
    }
    // k == 0 (the quick return) and nonsense depths get the k == 1 bound, not zero or NaN.
    EXPECT_EQ(tolerance(t, 0), tolerance(t, 1)) << gemm_types_name(t);
    EXPECT_EQ(tolerance(t, -5), tolerance(t, 1)) << gemm_types_name(t);
  }
}

TEST(Tolerance, FarBelowAMissingKStep) {
  for (GemmTypes t : all_types()) {
    for (std::int64_t k : depths()) {
      const double tol = tolerance(t, k);
      // At least a factor 2 everywhere (3 for the loosest at k = 16384), far more at small k.
      EXPECT_LT(2.0 * tol, missing_step_error(k)) << gemm_types_name(t) << " k=" << k;
      if (k <= 1025) {
        // The standard sweep's depths: more than a factor 15 for every combination.
        EXPECT_LT(15.0 * tol, missing_step_error(k)) << gemm_types_name(t) << " k=" << k;
      }
      if (k <= 4096) {
        // A single missing term (no K tile: the naive kernel) is caught too.
        EXPECT_LT(tol, missing_step_error(k, 1)) << gemm_types_name(t) << " k=" << k;
      }
    }
  }
  // fp32 keeps today's bound: a factor 17 even at k = 16384.
  EXPECT_LT(17.0 * tolerance({DType::kF32, DType::kF32}, 16384), missing_step_error(16384));
}

TEST(Tolerance, ElementBoundCatchesAWrongElement) {
  // A wrong element is off by about rms(ref); the element bound stays well under it.
  for (GemmTypes t : all_types()) {
    for (std::int64_t k : depths()) {
      EXPECT_DOUBLE_EQ(element_tolerance(t, k), 16.0 * tolerance(t, k));
      EXPECT_LT(element_tolerance(t, k), 0.125) << gemm_types_name(t) << " k=" << k;
    }
  }
}

TEST(Tolerance, OrdersByPrecisionLost) {
  const GemmTypes f32{DType::kF32, DType::kF32}, tf32{DType::kTF32, DType::kF32};
  const GemmTypes bf16{DType::kBF16, DType::kBF16}, bf16_f32{DType::kBF16, DType::kF32};
  const GemmTypes f16{DType::kF16, DType::kF16}, f16_f32{DType::kF16, DType::kF32};
  for (std::int64_t k : {1, 7, 16, 64, 1025, 4096, 16384}) {
    SCOPED_TRACE(k);
    EXPECT_LT(tolerance(f32, k), tolerance(tf32, k));
    // Tensor-core accumulation into fp32 is the same bound whatever the input type.
    EXPECT_EQ(tolerance(tf32, k), tolerance(bf16_f32, k));
    EXPECT_EQ(tolerance(tf32, k), tolerance(f16_f32, k));
    // Rounding C to 16 bits costs more than keeping it in fp32; bf16 (8 bits) more than f16 (11).
    EXPECT_LT(tolerance(f16_f32, k), tolerance(f16, k));
    EXPECT_LT(tolerance(bf16_f32, k), tolerance(bf16, k));
    EXPECT_LT(tolerance(tf32, k), tolerance(f16, k));
    EXPECT_LT(tolerance(f16, k), tolerance(bf16, k));
  }
}

TEST(Tolerance, TheFormula) {
  // 1e-5 sqrt(k) + [A/B not f32] 2^-23 k + u_C, u_C = 2^-8 (bf16), 2^-11 (f16), 0 (f32).
  const double accum = std::ldexp(1.0, -23);
  EXPECT_DOUBLE_EQ(tolerance({DType::kF32, DType::kF32}, 1), 1e-5);
  EXPECT_DOUBLE_EQ(tolerance({DType::kF32, DType::kF32}, 4096), 1e-5 * 64);
  EXPECT_DOUBLE_EQ(tolerance({DType::kTF32, DType::kF32}, 4096), 1e-5 * 64 + 4096 * accum);
  EXPECT_DOUBLE_EQ(tolerance({DType::kBF16, DType::kBF16}, 64),
                   1e-5 * 8 + 64 * accum + std::ldexp(1.0, -8));
  EXPECT_DOUBLE_EQ(tolerance({DType::kF16, DType::kF16}, 16384),
                   1e-5 * 128 + 16384 * accum + std::ldexp(1.0, -11));
  EXPECT_DOUBLE_EQ(tolerance({DType::kF16, DType::kF32}, 1), 1e-5 + accum);
}

}  // namespace
}  // namespace tilegemm
