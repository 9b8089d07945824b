// The library's own paths on the device: quick returns, bad input against device buffers, the
// cuBLAS provider and the two references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "gpu_env.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/reference.hpp"
#include "tilegemm/testbed.hpp"

namespace tilegemm {
namespace {

std::vector<float> download(const float* d, std::int64_t count) {
  std::vector<float> h(static_cast<std::size_t>(count));
  EXPECT_EQ(cudaMemcpy(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

CaseSpec spec_of(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, float beta) {
  CaseSpec s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.alpha = alpha;
  s.beta = beta;
  return s;
}

TEST(Library, BadInputLeavesDeviceCUntouched) {
  TILEGEMM_REQUIRE_GPU();
  Testbed tb(spec_of(33, 17, 9, 1.0f, 0.5f));
  ASSERT_TRUE(tb.init_status().ok());
  ASSERT_TRUE(tb.reset_c(0).ok());
  Problem p = tb.problem();
  const auto before = download(static_cast<float*>(p.c.data), 33 * 17);
  for (auto mutate : {+[](Problem& q) { q.c.ld = 3; }, +[](Problem& q) { q.k = -1; },
                      +[](Problem& q) { q.b.dtype = DType::kBF16; }}) {
    Problem bad = p;
    mutate(bad);
    for (const char* kernel : {"auto", "naive", "smem_tiled_t16"}) {
      EXPECT_FALSE(gemm(bad, kernel).ok());
    }
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto after = download(static_cast<float*>(p.c.data), 33 * 17);
  EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)), 0);
}

TEST(Library, QuickReturnsScaleC) {
  TILEGEMM_REQUIRE_GPU();
  struct Case {
    std::int64_t k;
    float alpha, beta;
  };
  // k == 0 and alpha == 0 both mean C = beta * C; beta == 0 must clear NaN, beta == 1 keep bits.
  for (const Case c : {Case{0, 1.0f, 0.0f}, Case{0, 1.0f, 2.5f}, Case{5, 0.0f, 0.0f},
                       Case{5, 0.0f, -1.5f}, Case{5, 0.0f, 1.0f}}) {
    Testbed tb(spec_of(40, 30, c.k, c.alpha, c.beta));
    ASSERT_TRUE(tb.init_status().ok());
    const CheckResult r =
        tb.run_and_check([](const Problem& p, cudaStream_t s) { return gemm(p, "auto", s); }, 0);
    EXPECT_TRUE(r.passed) << "k=" << c.k << " alpha=" << c.alpha << " beta=" << c.beta << ": "
                          << r.detail;
  }
}

TEST(Library, CublasProviderMatchesFp64InEveryLayoutMix) {
  TILEGEMM_REQUIRE_GPU();
  reference::Cublas cublas;
  ASSERT_TRUE(cublas.init_status().ok());
  for (int mix = 0; mix < 8; ++mix) {
    CaseSpec s = spec_of(67, 45, 129, -1.25f, 0.75f);
    s.la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
    s.lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
    s.lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
    s.pad_a = 1;
    s.pad_b = 2;
    s.pad_c = 3;
    Testbed tb(s);
    ASSERT_TRUE(tb.init_status().ok());
    const CheckResult r =
        tb.run_and_check([&](const Problem& p, cudaStream_t st) { return cublas.gemm(p, st); }, 0);
    EXPECT_TRUE(r.passed) << s.to_string() << ": " << r.detail;
    EXPECT_LT(r.rel_error, 1e-5);
  }
}

TEST(Library, DeviceFp64ReferenceMatchesHostReference) {
  TILEGEMM_REQUIRE_GPU();
  const std::int64_t m = 37, n = 29, k = 71;
  for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
    CaseSpec s = spec_of(m, n, k, 0.5f, 2.0f);
    s.la = la;
    s.lb = Layout::kColMajor;
    Testbed tb(s);
    ASSERT_TRUE(tb.init_status().ok());
    ASSERT_TRUE(tb.reset_c(0).ok());
    const Problem& dp = tb.problem();
    const auto a =
        download(static_cast<const float*>(dp.a.data), (la == Layout::kRowMajor ? m : k) * dp.a.ld);
    const auto b = download(static_cast<const float*>(dp.b.data), n * dp.b.ld);
    const auto c = download(static_cast<const float*>(dp.c.data), m * dp.c.ld);
    Problem hp = dp;
    hp.a.data = a.data();
    hp.b.data = b.data();
    hp.c.data = const_cast<float*>(c.data());
    const std::vector<double> host = reference::host_gemm(hp);
    double* d_ref = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_ref), sizeof(double) * m * n), cudaSuccess);
    ASSERT_TRUE(reference::gemm_fp64(dp, d_ref, 0).ok());
    std::vector<double> dev(static_cast<std::size_t>(m * n));
    ASSERT_EQ(cudaMemcpy(dev.data(), d_ref, sizeof(double) * dev.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    cudaFree(d_ref);
    for (std::size_t i = 0; i < dev.size(); ++i) {
      ASSERT_NEAR(dev[i], host[i], 1e-9 * (1.0 + std::fabs(host[i]))) << "element " << i;
    }
    // The inputs are random in [-1, 1), never zeros.
    EXPECT_GT(std::fabs(a[0]) + std::fabs(a[1]) + std::fabs(b[0]), 0.0f);
  }
}

TEST(Library, TestbedCatchesAWrongKernel) {
  TILEGEMM_REQUIRE_GPU();
  // A "kernel" that does nothing leaves the NaN poison: the check must fail, not pass.
  Testbed tb(spec_of(64, 64, 64, 1.0f, 0.0f));
  ASSERT_TRUE(tb.init_status().ok());
  const CheckResult r = tb.run_and_check([](const Problem&, cudaStream_t) { return Status(); }, 0);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.nonfinite, 64 * 64);
  // A kernel that skips one K step is off far beyond the tolerance.
  Testbed tb2(spec_of(64, 64, 64, 1.0f, 0.0f));
  const CheckResult r2 = tb2.run_and_check(
      [](const Problem& p, cudaStream_t s) {
        Problem shorter = p;
        shorter.k = 56;
        return gemm(shorter, "naive", s);
      },
      0);
  EXPECT_FALSE(r2.passed);
  EXPECT_GT(r2.rel_error, 100 * r2.tolerance);
}

}  // namespace
}  // namespace tilegemm
