// The host reference against products worked out by hand, in every layout and element type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tilegemm/reference.hpp"

namespace tilegemm {
namespace {

// Stores a row-major rows x cols matrix in `layout` with leading dimension ld, as T.
template <typename T = float>
std::vector<T> store(const std::vector<float>& row_major, std::int64_t rows, std::int64_t cols,
                     Layout layout, std::int64_t ld) {
  const std::int64_t outer = layout == Layout::kRowMajor ? rows : cols;
  std::vector<T> out(static_cast<std::size_t>(outer * ld), T(-99.0f));
  const Strides s = strides_of(layout, ld);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      out[static_cast<std::size_t>(i * s.row + j * s.col)] =
          T(row_major[static_cast<std::size_t>(i * cols + j)]);
    }
  }
  return out;
}

// The hand-worked product of MatchesAHandWorkedProductInEveryLayout with A/B stored as TAB and
// C as TC (every value there is exact in bf16 and f16).
template <typename TAB, typename TC>
void check_typed_product(GemmTypes types) {
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12}, c = {1, 1, 1, 1};
  const std::vector<double> expected = {113, 125, 275, 305};
  for (int mix = 0; mix < 8; ++mix) {
    const Layout la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
    const Layout lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
    const Layout lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
    const std::int64_t pad = mix % 3;
    const std::int64_t lda = min_ld(la, 2, 3) + pad, ldb = min_ld(lb, 3, 2) + pad;
    const std::int64_t ldc = min_ld(lc, 2, 2) + pad;
    const auto sa = store<TAB>(a, 2, 3, la, lda), sb = store<TAB>(b, 3, 2, lb, ldb);
    auto sc = store<TC>(c, 2, 2, lc, ldc);
    Problem p = Problem::make_typed(2, 2, 3, types, sa.data(), sb.data(), sc.data(), 2.0f, -3.0f,
                                    la, lb, lc);
    p.a.ld = lda;
    p.b.ld = ldb;
    p.c.ld = ldc;
    EXPECT_EQ(reference::host_gemm(p), expected) << gemm_types_name(types) << " layout mix " << mix;
  }
}

TEST(HostReference, MatchesAHandWorkedProductInEveryLayout) {
  // A (2x3) = [1 2 3; 4 5 6], B (3x2) = [7 8; 9 10; 11 12], C = [1 1; 1 1]
  // AB = [58 64; 139 154]; 2*AB - 3*C = [113 125; 275 305]
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12}, c = {1, 1, 1, 1};
  const std::vector<double> expected = {113, 125, 275, 305};
  for (int mix = 0; mix < 8; ++mix) {
    const Layout la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
    const Layout lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
    const Layout lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
    const std::int64_t pad = mix % 3;  // leading dimensions beyond the minimum too
    const std::int64_t lda = min_ld(la, 2, 3) + pad, ldb = min_ld(lb, 3, 2) + pad;
    const std::int64_t ldc = min_ld(lc, 2, 2) + pad;
    const auto sa = store(a, 2, 3, la, lda), sb = store(b, 3, 2, lb, ldb);
    const auto sc = store(c, 2, 2, lc, ldc);
    Problem p;
    p.m = 2;
    p.n = 2;
    p.k = 3;
    p.alpha = 2.0f;
    p.beta = -3.0f;
    p.a = {sa.data(), la, lda, DType::kF32};
    p.b = {sb.data(), lb, ldb, DType::kF32};
    p.c = {const_cast<float*>(sc.data()), lc, ldc, DType::kF32};
    EXPECT_EQ(reference::host_gemm(p), expected) << "layout mix " << mix;
  }
}

TEST(HostReference, Bf16OperandsWithBf16AndF32C) {
  check_typed_product<__nv_bfloat16, __nv_bfloat16>({DType::kBF16, DType::kBF16});
  check_typed_product<__nv_bfloat16, float>({DType::kBF16, DType::kF32});
}

TEST(HostReference, F16OperandsWithF16AndF32C) {
  check_typed_product<__half, __half>({DType::kF16, DType::kF16});
  check_typed_product<__half, float>({DType::kF16, DType::kF32});
}

TEST(HostReference, Tf32OperandsAreReadAsStored) {
  // tf32 is fp32 storage; the reference multiplies the stored values (1 + 2^-20 is not a tf32
  // number, and the reference does not round it: the testbed's inputs are tf32 already).
  const float x = 1.0f + 1.0f / 1048576.0f;
  const std::vector<float> a = {x}, b = {x};
  std::vector<float> c(1);
  const Problem p = Problem::make_typed(1, 1, 1, {DType::kTF32, DType::kF32}, a.data(), b.data(),
                                        c.data());
  EXPECT_EQ(reference::host_gemm(p), std::vector<double>{static_cast<double>(x) * x});
}

TEST(HostReference, ReadsBf16AndF16ValuesNotTheirBits) {
  // bf16 and f16 values that are not integers, and C's beta term read in C's type.
  const std::vector<__nv_bfloat16> a = {__float2bfloat16(0.5f), __float2bfloat16(-1.25f)};
  const std::vector<__nv_bfloat16> b = {__float2bfloat16(3.0f), __float2bfloat16(0.0078125f)};
  std::vector<__nv_bfloat16> c = {__float2bfloat16(-2.5f)};
  const Problem pb = Problem::make_typed(1, 1, 2, {DType::kBF16, DType::kBF16}, a.data(),
                                         b.data(), c.data(), 1.0f, 0.5f);
  // 0.5 * 3 - 1.25 / 128 + 0.5 * -2.5
  EXPECT_EQ(reference::host_gemm(pb), std::vector<double>{1.5 - 1.25 / 128.0 - 1.25});

  const std::vector<__half> ah = {__float2half(0.5f), __float2half(-1.25f)};
  const std::vector<__half> bh = {__float2half(3.0f), __float2half(0.0009765625f)};
  std::vector<__half> ch = {__float2half(-2.5f)};
  const Problem ph = Problem::make_typed(1, 1, 2, {DType::kF16, DType::kF16}, ah.data(),
                                         bh.data(), ch.data(), 1.0f, 0.5f);
  EXPECT_EQ(reference::host_gemm(ph), std::vector<double>{1.5 - 1.25 / 1024.0 - 1.25});
}

TEST(HostReference, UnsupportedTypesGiveNothing) {
  const std::vector<float> a = {1}, b = {1};
  std::vector<__nv_bfloat16> c(1);
  // f32 operands cannot write a bf16 C (types_supported).
  const Problem p = Problem::make_typed(1, 1, 1, {DType::kF32, DType::kBF16}, a.data(), b.data(),
                                        c.data());
  EXPECT_TRUE(reference::host_gemm(p).empty());
}

TEST(HostReference, BetaZeroIgnoresNaNInC) {
  const std::vector<float> a = {2}, b = {3};
  std::vector<float> c = {std::numeric_limits<float>::quiet_NaN()};
  Problem p = Problem::make(1, 1, 1, a.data(), b.data(), c.data(), 1.0f, 0.0f);
  EXPECT_EQ(reference::host_gemm(p), std::vector<double>{6.0});
  // The same with a bf16 C holding NaN.
  const std::vector<__nv_bfloat16> a16 = {__float2bfloat16(2.0f)}, b16 = {__float2bfloat16(3.0f)};
  std::vector<__nv_bfloat16> c16 = {__float2bfloat16(std::numeric_limits<float>::quiet_NaN())};
  const Problem p16 = Problem::make_typed(1, 1, 1, {DType::kBF16, DType::kBF16}, a16.data(),
                                          b16.data(), c16.data(), 1.0f, 0.0f);
  EXPECT_EQ(reference::host_gemm(p16), std::vector<double>{6.0});
}

TEST(HostReference, AccumulatesInDouble) {
  // 1 + 1e-8 * 1e8 terms: float accumulation would lose every small term.
  const std::int64_t k = 1001;
  std::vector<float> a(static_cast<std::size_t>(k), 1e-8f), b(static_cast<std::size_t>(k), 1.0f);
  a[0] = 1.0f;
  std::vector<float> c(1);
  Problem p = Problem::make(1, 1, k, a.data(), b.data(), c.data());
  EXPECT_NEAR(reference::host_gemm(p)[0], 1.0 + 1000 * 1e-8, 1e-12);
}

}  // namespace
}  // namespace tilegemm
