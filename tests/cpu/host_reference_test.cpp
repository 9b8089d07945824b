// The host reference against products worked out by hand, in every layout.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tilegemm/reference.hpp"

namespace tilegemm {
namespace {

// Stores a row-major rows x cols matrix in `layout` with leading dimension ld.
std::vector<float> store(const std::vector<float>& row_major, std::int64_t rows, std::int64_t cols,
                         Layout layout, std::int64_t ld) {
  const std::int64_t outer = layout == Layout::kRowMajor ? rows : cols;
  std::vector<float> out(static_cast<std::size_t>(outer * ld), -99.0f);
  const Strides s = strides_of(layout, ld);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      out[static_cast<std::size_t>(i * s.row + j * s.col)] =
          row_major[static_cast<std::size_t>(i * cols + j)];
    }
  }
  return out;
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

TEST(HostReference, BetaZeroIgnoresNaNInC) {
  const std::vector<float> a = {2}, b = {3};
  std::vector<float> c = {std::numeric_limits<float>::quiet_NaN()};
  Problem p = Problem::make(1, 1, 1, a.data(), b.data(), c.data(), 1.0f, 0.0f);
  EXPECT_EQ(reference::host_gemm(p), std::vector<double>{6.0});
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
